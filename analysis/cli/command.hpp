// One shakedown-analyze command: its CLI11 (sub)app and what it does once the command line parsed.
// Each command lives in its own file with an add_<name>_command(CLI::App&) that declares its
// options, so main.cpp only wires them.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>

namespace shakedown::analysis::cli {

struct Command {
    CLI::App* app = nullptr;  // the subcommand, or the main app for the default `RUN [options]` form
    // Runs after a successful parse when this command was given; returns the process exit code.
    std::function<int(std::ostream& out, std::ostream& err)> run;
};

}  // namespace shakedown::analysis::cli
