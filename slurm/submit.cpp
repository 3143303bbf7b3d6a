#include "slurm/submit.hpp"

#include "core/errors.hpp"
#include "core/process_runner.hpp"
#include "slurm/script_file.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstring>
#include <regex>
#include <sstream>

namespace shakedown::slurm {
namespace {

std::string failure_text(const ProcessResult& result) {
    if (result.timed_out) return "timed out";
    const auto message = first_line(result.err.empty() ? result.out : result.err);
    return message.empty() ? fmt::format("exit code {}", result.exit_code) : message;
}

// The default script name, shakedown-<suite>-<UTC time>.sbatch, with -2, -3, ... when a script of
// that name exists: two submissions in the same second each keep their own script.
std::filesystem::path write_default_script(const JobSpec& job, const std::string& text) {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    const std::string base = fmt::format("shakedown-{}-{:%Y%m%d-%H%M%S}", job.suite, fmt::gmtime(now));
    for (int attempt = 1; attempt <= 1000; ++attempt) {
        const std::filesystem::path path =
            job.out_parent / (attempt == 1 ? base + ".sbatch" : fmt::format("{}-{}.sbatch", base, attempt));
        if (create_script(path, text)) return path;
    }
    throw InputError(fmt::format("cannot find a free job script name for '{}' in '{}'", base, job.out_parent.string()));
}

}  // namespace

std::vector<std::string> list_partitions(const SlurmTools& tools) {
    const auto result = run_process({tools.sinfo, "-h", "-o", "%P"}, 60.0);
    if (result.exit_code != 0)
        throw InputError(fmt::format("cannot list Slurm partitions with '{} -h -o %P': {}", tools.sinfo,
                                     failure_text(result)));
    std::vector<std::string> partitions;
    std::istringstream lines(result.out);
    for (std::string line; std::getline(lines, line);) {
        while (!line.empty() && (line.back() == '*' || line.back() == ' ' || line.back() == '\r')) line.pop_back();
        if (!line.empty()) partitions.push_back(line);
    }
    return partitions;
}

void require_known_partition(const std::string& partition, const SlurmTools& tools) {
    const auto partitions = list_partitions(tools);
    if (std::find(partitions.begin(), partitions.end(), partition) == partitions.end())
        throw InputError(fmt::format("unknown partition '{}': Slurm knows {}", partition,
                                     partitions.empty() ? std::string("none") : fmt::format("{}", fmt::join(partitions, ", "))));
}

SubmitResult submit_job(const JobSpec& job, const SlurmTools& tools, std::filesystem::path script) {
    if (!job.partition.empty()) require_known_partition(job.partition, tools);

    std::error_code error;
    std::filesystem::create_directories(job.out_parent, error);
    if (error) throw InputError(fmt::format("cannot create '{}': {}", job.out_parent.string(), error.message()));
    const std::string text = render_job_script(job);
    if (script.empty()) script = write_default_script(job, text);
    else if (!create_script(script, text))
        throw InputError(fmt::format("the job script '{}' exists already; shakedown never overwrites one (give another "
                                     "--script, or leave it out for a new name)", script.string()));

    // Never `sbatch --wait`: it follows a requeued job on and on, takes no limit, and when killed
    // it says nothing of what it saw (nor, its output being buffered, the job id). sbatch returns
    // at once here; wait_for_job follows the job with a timeout of its own.
    const std::vector<std::string> argv = {tools.sbatch, "--parsable", script.string()};
    const auto result = run_process(argv, 120.0);

    // --parsable prints "jobid" or "jobid;cluster".
    static const std::regex parsable(R"((\d+)(;\S+)?)");
    std::smatch match;
    const auto line = first_line(result.out);
    if (!std::regex_match(line, match, parsable))
        throw InputError(fmt::format("sbatch refused the job ({}): {}", describe_command(argv), failure_text(result)));
    if (result.exit_code != 0)
        throw InputError(fmt::format("sbatch failed ({}): {}", describe_command(argv), failure_text(result)));
    SubmitResult submitted;
    submitted.job_id = match[1];
    submitted.script = script;
    submitted.run_folder = job.out_parent / fmt::format("{}-job{}", job.suite, submitted.job_id);
    return submitted;
}

}  // namespace shakedown::slurm
