#include "slurm/cli.hpp"

#include "core/printable_text.hpp"

#include "core/errors.hpp"
#include "slurm/analyzer_lookup.hpp"
#include "slurm/job_script.hpp"
#include "slurm/script_file.hpp"
#include "slurm/slurm_nodes.hpp"
#include "slurm/submit.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace shakedown::slurm {
namespace {

std::vector<std::string> split_words(const std::string& text) {
    std::istringstream stream(text);
    std::vector<std::string> words;
    for (std::string word; stream >> word;) words.push_back(word);
    return words;
}

// The running shakedown binary, so the job starts the same build that generated it.
std::filesystem::path this_executable() {
    std::error_code error;
    auto path = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path("shakedown") : path;
}

std::string path_variable() {
    const char* path = std::getenv("PATH");
    return path != nullptr ? path : "";
}

}  // namespace

SlurmCommandLine::SlurmCommandLine(CLI::App& app) {
    slurm_ = app.add_subcommand("slurm", "Slurm batch jobs: write or submit a job script for a suite");
    slurm_->require_subcommand(1);
    generate_ = slurm_->add_subcommand("generate", "write a job script for a suite (to --script or standard output)");
    submit_ = slurm_->add_subcommand("submit", "write a job script and submit it with sbatch; prints the job id");
    add_job_options(*generate_);
    add_job_options(*submit_);
    generate_->add_option("--script", input_.script, "write the script to this file instead of standard output");
    submit_->add_option("--script", input_.script, "where to write the script (default: in --out)");
    auto* wait = submit_->add_flag("--wait", input_.wait,
                                   "wait for the job to end and exit with its exit code (the analyzer's; 4: no verdict)");
    submit_->add_option("--wait-timeout", input_.wait_timeout_s,
                        "give up waiting after this many seconds, exit 4 (default: the job's time limit + 300)")
        ->needs(wait);
}

void SlurmCommandLine::add_job_options(CLI::App& command) {
    command.add_option("--nodes,-N", input_.nodes, "number of nodes");
    command.add_option("--nodelist,-w", input_.nodelist, "nodes as a Slurm hostlist, e.g. node[01-16,20]");
    command.add_option("--partition,-p", input_.partition, "partition (default: the site's default)");
    command.add_option("--time,-t", input_.time_limit, "time limit: minutes or [D-]HH:MM:SS (default: per suite)");
    command.add_option("--analysis-reserve", input_.analysis_reserve_s,
                       "seconds kept at the end of the job for the analysis: the run step is stopped that long before "
                       "the time limit (default: a tenth of it, 60-600 s)");
    command.add_option("--gpus-per-node", input_.gpus_per_node, "GPUs per node (0: none requested)");
    command.add_option("--ranks-per-node", input_.ranks_per_node, "MPI ranks per node (default: one per GPU, or 1)");
    command.add_option("--suite", input_.suite, "quick, full, burnin or pairwise (default quick)");
    command.add_option("--out", input_.out_parent, "parent folder of the run folder (default ./shakedown-runs)");
    command.add_option("--launcher", input_.launcher, "srun (--mpi=pmix) or mpirun (default srun)");
    command.add_option("--launcher-args", input_.launcher_args,
                       "extra words for srun/mpirun, split at spaces (e.g. \"--mca btl self,tcp\")");
    command.add_option("--run-args", input_.run_args, "extra words for `shakedown run`, split at spaces");
    command.add_option("--analyzer-args", input_.analyzer_args,
                       "extra words for shakedown-analyze, split at spaces (e.g. \"--thresholds /site/t.yaml\")");
    command.add_option("--config", input_.config_file, "YAML configuration passed to `shakedown run`");
    command.add_option("--shakedown", input_.shakedown_binary, "shakedown binary the job runs (default: this one)");
    command.add_option("--analyzer", input_.analyzer_binary,
                       "shakedown-analyze binary (default: beside shakedown, in its build tree, else from PATH; "
                       "none found: refused)");
    command.add_option("--account,-A", input_.account, "Slurm account to charge the job to");
    command.add_option("--qos,-q", input_.qos, "Slurm quality of service");
    command.add_option("--reservation", input_.reservation, "Slurm reservation to run in");
    command.add_option("--constraint,-C", input_.constraint, "node features the job needs, e.g. \"a100&ib\"");
    command.add_option("--exclude,-x", input_.exclude, "nodes to leave out, as a Slurm hostlist");
    command.add_flag("--exclusive,!--no-exclusive", input_.exclusive,
                     "whole nodes for the job (default; --no-exclusive shares them, and the figures with them)");
    command.add_option("--sbatch-args", input_.sbatch_args,
                       "further sbatch options, split at spaces, each an #SBATCH line (e.g. \"--mem=0 --gres=gpu:8\")");
    command.add_option("--signal", input_.signal_s,
                       "seconds before the time limit at which Slurm signals the job to stop the run and analyse "
                       "(default: the analysis reserve; 0: none)");
}

bool SlurmCommandLine::chosen() const { return slurm_->parsed(); }

int SlurmCommandLine::execute() const { return generate_->parsed() ? generate() : submit(); }

JobOptions SlurmCommandLine::job_options() const {
    const auto& in = input_;
    JobOptions options;
    options.nodes = in.nodes;
    options.nodelist = in.nodelist;
    options.partition = in.partition;
    options.time_limit = in.time_limit;
    options.analysis_reserve_s = in.analysis_reserve_s;
    options.gpus_per_node = in.gpus_per_node;
    options.ranks_per_node = in.ranks_per_node;
    options.suite = in.suite;
    options.out_parent = in.out_parent;
    options.launcher = parse_launcher(in.launcher);
    options.launcher_args = split_words(in.launcher_args);
    options.run_args = split_words(in.run_args);
    options.analyzer_args = split_words(in.analyzer_args);
    if (!in.config_file.empty()) {
        if (!std::filesystem::is_regular_file(in.config_file))
            throw InputError(fmt::format("--config '{}' is not a file", in.config_file));
        // Absolute: the job may start in another folder than this command.
        options.run_args.insert(options.run_args.begin(),
                                {"--config", std::filesystem::absolute(in.config_file).lexically_normal().string()});
    }
    options.shakedown_binary = in.shakedown_binary.empty() ? this_executable() : std::filesystem::path(in.shakedown_binary);
    // Decided here, not in the job: without an analyzer the job would run every test and then
    // fail its verdict step with "command not found".
    options.analyzer_binary = in.analyzer_binary.empty()
                                  ? find_analyzer(options.shakedown_binary, path_variable())
                                  : check_analyzer(in.analyzer_binary, path_variable());
    options.account = in.account;
    options.qos = in.qos;
    options.reservation = in.reservation;
    options.constraint = in.constraint;
    options.exclude = in.exclude;
    options.exclusive = in.exclusive;
    options.sbatch_args = split_words(in.sbatch_args);
    options.signal_s = in.signal_s;
    return options;
}

int SlurmCommandLine::generate() const {
    const auto& in = input_;
    const auto job = validate_job_options(job_options());
    const auto script = render_job_script(job);
    if (in.script.empty()) {
        fmt::print("{}", script);
        return exit_code::ok;
    }
    if (!create_script(in.script, script))
        throw InputError(fmt::format("the job script '{}' exists already; shakedown never overwrites one (give another "
                                     "--script, or remove that one first)", in.script));
    fmt::print("shakedown: wrote {} ({} suite, {} nodes)\n", in.script, job.suite, job.nodes);
    return exit_code::ok;
}

int SlurmCommandLine::submit() const {
    const auto& in = input_;
    const auto job = validate_job_options(job_options());
    if (in.wait_timeout_s && *in.wait_timeout_s < 1)
        throw InputError(fmt::format("--wait-timeout {} must be at least 1 second", *in.wait_timeout_s));
    const SlurmTools tools;
    const auto submitted = submit_job(job, tools, in.script);
    // Printed before the wait, so a caller has the job id however the wait ends.
    fmt::print("shakedown: submitted job {} ({} suite, {} nodes, script {}, run folder {})\n", submitted.job_id,
               job.suite, job.nodes, submitted.script.string(), submitted.run_folder.string());
    std::fflush(stdout);
    if (!in.wait) return exit_code::ok;

    WaitOptions wait;
    wait.timeout_s = static_cast<double>(in.wait_timeout_s.value_or(default_wait_timeout_s(job.time_limit_s)));
    const auto outcome = wait_for_job(submitted.job_id, tools, wait);
    report_wait(submitted, outcome);
    return outcome.exit_code;
}

void SlurmCommandLine::report_wait(const SubmitResult& submitted, const WaitOutcome& outcome) {
    if (outcome.end == WaitOutcome::End::exited) {
        fmt::print("shakedown: job {} ended with exit code {}\n", submitted.job_id, outcome.exit_code);
    } else {
        // No verdict: one line on standard error, as for any other failure of the command.
        fmt::print(stderr, "shakedown: {}\n", escape_control(outcome.message));
    }
    // The job script records Slurm's node states after the run step: a node Slurm marked down
    // or not responding is the likeliest reason for an incomplete run, so name it here too.
    if (const auto record = read_slurm_nodes(submitted.run_folder))
        for (const auto& node : unusable_nodes(*record))
            fmt::print("shakedown: Slurm reported node {} {} during job {}{}\n", node.node, node.state, submitted.job_id,
                       node.reason.empty() ? std::string() : fmt::format(" ({})", node.reason));
    std::fflush(stdout);
}

}  // namespace shakedown::slurm
