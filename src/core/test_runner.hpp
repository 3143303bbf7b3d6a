// Runs one test on every rank of a session: asks each rank for a waiver, runs the test on
// the communicator of the ranks that did not waive it, stamps the time window, turns an
// exception into status "error", and applies the abort/hang faults aimed at it. The driver
// and the MPI tests of every test family share this one path.
#pragma once

#include "core/config.hpp"
#include "core/result.hpp"
#include "core/session.hpp"
#include "core/test.hpp"

#include <nlohmann/json_fwd.hpp>

namespace shakedown {

// Runs the test's declared check_parameters; an InputError comes back naming the test ("allpairs:
// parameter 'window' ..."), so one line says which test of a suite refused the value.
void check_test_parameters(const Test& test, const TestParams& params, int world_size);

// Collective over session.world().
TestResult execute_test(const Test& test, const Session& session, const Config& config,
                        const nlohmann::json& inventory);

}  // namespace shakedown
