// For MPI tests of a test family: run one registered test through the same path the
// driver uses (execute_test), with a YAML config snippet for its params and faults.
#pragma once

#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/session.hpp"
#include "core/test_runner.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <string>

namespace shakedown::testing {

// `yaml` is a config file's text, e.g. "params: {stream: {size_mib: 8}}\nfaults: [...]".
inline TestResult run_registered_test(const std::string& key, const std::string& yaml = "",
                                      const nlohmann::json& inventory = nlohmann::json::object()) {
    CliOverrides cli;
    cli.tests = {key};
    const Config config = parse_config_text(yaml, "test-config", cli, Registry::instance());
    const Session session(MPI_COMM_WORLD, 0);
    const Test& test = *Registry::instance().find(key);
    check_test_parameters(test, config.params_for(test), session.world_size());  // InputError: as the driver's exit 2
    return execute_test(test, session, config, inventory);
}

// The text of the InputError that running `key` with `yaml` throws (before any work, as the
// driver's exit 2), or "(no InputError)" when the test ran.
inline std::string input_error_of(const std::string& key, const std::string& yaml) {
    try {
        run_registered_test(key, yaml);
    } catch (const InputError& error) {
        return error.what();
    }
    return "(no InputError)";
}

// Expects `key` with `yaml` refused with an InputError whose text contains `message`.
inline void expect_refused(const std::string& key, const std::string& yaml, const std::string& message) {
    const std::string refusal = input_error_of(key, yaml);
    EXPECT_NE(refusal.find(message), std::string::npos) << yaml << " gave: " << refusal << "\nwanted: " << message;
}

}  // namespace shakedown::testing
