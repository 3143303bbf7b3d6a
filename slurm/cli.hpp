// `shakedown slurm generate|submit`, added to the driver's command line by three lines in
// src/driver/main.cpp:
//     #include "slurm/cli.hpp"
//     shakedown::slurm::SlurmCommandLine slurm_cli(app);      // before app.parse
//     if (slurm_cli.chosen()) return slurm_cli.execute();     // first line inside the try
// execute() throws InputError for bad input (the driver prints it and exits 2).
#pragma once

#include "slurm/job_script.hpp"
#include "slurm/job_wait.hpp"
#include "slurm/submit.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace shakedown::slurm {

class SlurmCommandLine {
public:
    explicit SlurmCommandLine(CLI::App& app);
    SlurmCommandLine(const SlurmCommandLine&) = delete;  // CLI11 holds pointers into this object
    SlurmCommandLine& operator=(const SlurmCommandLine&) = delete;

    bool chosen() const;
    // Runs the chosen subcommand; returns the exit code (submit --wait: the job's exit code).
    int execute() const;

private:
    // What the options were given as, before validation (shared by generate and submit).
    struct Input {
        std::optional<int> nodes;
        std::optional<std::string> nodelist;
        std::string partition;
        std::optional<std::string> time_limit;
        std::optional<long> analysis_reserve_s;
        int gpus_per_node = 0;
        std::optional<int> ranks_per_node;
        std::string suite = "quick";
        std::string out_parent = "shakedown-runs";
        std::string launcher = "srun";
        std::string launcher_args;
        std::string run_args;
        std::string analyzer_args;
        std::string config_file;
        std::string shakedown_binary;
        std::string analyzer_binary;
        std::string account;
        std::string qos;
        std::string reservation;
        std::string constraint;
        std::optional<std::string> exclude;
        bool exclusive = true;
        std::string sbatch_args;
        std::optional<long> signal_s;
        std::string script;
        bool wait = false;
        std::optional<long> wait_timeout_s;
    };

    void add_job_options(CLI::App& command);
    JobOptions job_options() const;  // throws InputError (unknown launcher, missing --config file)
    int generate() const;
    int submit() const;
    // After --wait: says how the job ended and names the nodes Slurm held unusable in it.
    static void report_wait(const SubmitResult& submitted, const WaitOutcome& outcome);

    Input input_;
    CLI::App* slurm_ = nullptr;
    CLI::App* generate_ = nullptr;
    CLI::App* submit_ = nullptr;
};

}  // namespace shakedown::slurm
