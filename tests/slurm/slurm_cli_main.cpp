// The driver's `shakedown slurm` wiring in a small program of its own, so the subcommands and
// their exit codes are tested (and the virtual cluster can generate jobs) independently of
// the driver: the same three lines go into src/driver/main.cpp.
#include "core/errors.hpp"
#include "slurm/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

int main(int argc, char** argv) {
    CLI::App app{"shakedown-slurm-cli: the `shakedown slurm` subcommands alone"};
    app.require_subcommand(1);
    shakedown::slurm::SlurmCommandLine slurm_cli(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::ParseError& error) {
        fmt::print(stderr, "shakedown: {}\n", error.what());
        return shakedown::exit_code::bad_input;
    }
    try {
        if (slurm_cli.chosen()) return slurm_cli.execute();
    } catch (const shakedown::InputError& error) {
        fmt::print(stderr, "shakedown: {}\n", error.what());
        return shakedown::exit_code::bad_input;
    }
    return shakedown::exit_code::bad_input;
}
