// Everything one test sees while it runs on one rank: the session (identity, communicators,
// GPU), the immutable config, its own parameters, the communicator of the ranks that did not
// waive it, this node's inventory, and the test-only fault switches aimed at it.
#pragma once

#include "core/config.hpp"
#include "core/params.hpp"
#include "core/session.hpp"

#include <nlohmann/json_fwd.hpp>

#include <vector>

namespace shakedown {

// The faults from the config that target this test on this rank.
class FaultSwitches {
public:
    FaultSwitches() = default;
    FaultSwitches(const std::vector<FaultSpec>& all, std::string_view test_key, int world_rank);

    bool corrupt() const { return corrupt_; }
    double delay_s() const { return delay_s_; }  // extra seconds per operation, 0 when none
    bool abort() const { return abort_; }
    bool hang() const { return hang_; }
    bool stop() const { return stop_; }
    double stop_s() const { return stop_s_; }  // with stop(): continued after this long; 0: never

private:
    bool corrupt_ = false;
    bool abort_ = false;
    bool hang_ = false;
    bool stop_ = false;
    double stop_s_ = 0.0;
    double delay_s_ = 0.0;
};

class RunContext {
public:
    RunContext(const Session& session, const Config& config, TestParams params, MPI_Comm participants,
               const nlohmann::json& inventory, FaultSwitches faults)
        : session_(session), config_(config), params_(std::move(params)), comm_(participants),
          inventory_(inventory), faults_(faults) {}

    const Session& session() const { return session_; }
    const Config& config() const { return config_; }
    const TestParams& params() const { return params_; }
    const nlohmann::json& inventory() const { return inventory_; }
    const FaultSwitches& faults() const { return faults_; }

    // The ranks running this test (those that did not waive it); rank() and size() are in it.
    MPI_Comm comm() const { return comm_; }
    int rank() const;
    int size() const;

private:
    const Session& session_;
    const Config& config_;
    TestParams params_;
    MPI_Comm comm_;
    const nlohmann::json& inventory_;
    FaultSwitches faults_;
};

}  // namespace shakedown
