#include "slurm/job_script.hpp"

#include "core/errors.hpp"
#include "core/printable_text.hpp"
#include "hostlist/hostlist.hpp"
#include "hostlist/node_name.hpp"
#include "slurm/embedded_templates.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <unordered_set>

namespace shakedown::slurm {
namespace {

struct SuiteTemplate {
    std::string_view name;
    long default_time_limit_s;  // when the user gives no --time
};

// The quick suite runs about 5 minutes; the limits leave room for start-up and the analyzer.
constexpr std::array<SuiteTemplate, 4> suite_templates{{
    {"quick", 15 * 60},
    {"full", 4 * 3600},
    {"burnin", 12 * 3600},
    {"pairwise", 2 * 3600},
}};

constexpr int max_nodes = 100'000;
constexpr int max_gpus_per_node = 64;
constexpr int max_ranks_per_node = 1024;

bool has_control_character(std::string_view text) {
    return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

// #SBATCH lines are split by sbatch itself, not by a shell: a path there must be one plain word.
void require_plain_path(const std::filesystem::path& path, std::string_view option) {
    const auto text = path.string();
    if (text.find_first_of(" \t\"'\\%$`") != std::string::npos || has_control_character(text))
        throw InputError(fmt::format("{} '{}' must not contain spaces, quotes, '%', '$' or control characters", option,
                                     text));
}

std::filesystem::path resolve_binary(const std::filesystem::path& binary, std::string_view option) {
    if (binary.empty()) throw InputError(fmt::format("{} is empty", option));
    if (has_control_character(binary.string())) throw InputError(fmt::format("{} contains control characters", option));
    // A bare name is looked up in PATH on the node; a path is made absolute here, because the
    // job may start in another folder.
    return binary.has_parent_path() ? std::filesystem::absolute(binary).lexically_normal() : binary;
}

void require_plain_arguments(const std::vector<std::string>& arguments, std::string_view option) {
    for (const auto& argument : arguments)
        if (has_control_character(argument))
            throw InputError(fmt::format("{}: argument with a control character", option));
}

// Account, QOS and reservation names: what Slurm's own names are made of.
void require_slurm_name(const std::string& value, std::string_view option) {
    static const std::regex name(R"([A-Za-z0-9_.+-]{1,64})");
    if (!std::regex_match(value, name))
        throw InputError(fmt::format("invalid {} '{}': letters, digits and '_' '.' '+' '-' only, at most 64", option,
                                     value));
}

// A feature expression (a100&ib, [rack1|rack2], knl*4): the operators Slurm knows and feature
// names. The #SBATCH line is read by sbatch alone (bash sees a comment), so '&' and '|' there are
// operators of Slurm's, never the shell's; quotes, '$', spaces and the rest are refused.
void require_constraint(const std::string& value) {
    static const std::regex expression(R"([A-Za-z0-9_.:,&|*()\[\]-]{1,256})");
    if (!std::regex_match(value, expression))
        throw InputError(fmt::format("invalid --constraint '{}': feature names and the operators & | [ ] * ( ) "
                                     "only, at most 256 characters",
                                     value));
}

// The sbatch options the generator writes itself, from its own options: given again through
// --sbatch-args they would silently win or lose against those.
bool owned_by_generator(std::string_view option) {
    static constexpr std::array<std::string_view, 23> long_options = {
        "--nodes",   "--nodelist",  "--ntasks-per-node", "--partition",  "--time",    "--gpus-per-node",
        "--output",  "--chdir",     "--signal",          "--requeue",    "--no-requeue", "--no-kill",
        "--job-name", "--exclusive", "--account",        "--qos",        "--reservation", "--constraint",
        "--exclude", "--wrap",      "--kill-on-invalid-dep", "--array",  "--batch"};
    static constexpr std::array<std::string_view, 13> short_options = {"-N", "-w", "-p", "-t", "-o", "-D", "-k",
                                                                        "-J", "-A", "-q", "-C", "-x", "-a"};
    // sbatch reads options with getopt_long, which takes any unambiguous abbreviation
    // ("--part=debug" is --partition): a start of an owned name is owned, unless it is itself an
    // sbatch option (getopt_long prefers the exact name: --gpus is not --gpus-per-node).
    static constexpr std::array<std::string_view, 1> own_options_within_owned = {"--gpus"};
    const auto name = option.substr(0, option.find('='));
    if (name.size() > 2 && name.substr(0, 2) == "--") {
        if (std::find(own_options_within_owned.begin(), own_options_within_owned.end(), name) !=
            own_options_within_owned.end())
            return false;
        return std::any_of(long_options.begin(), long_options.end(),
                           [&](std::string_view owned) { return owned.starts_with(name); });
    }
    return name.size() >= 2 && std::find(short_options.begin(), short_options.end(), name.substr(0, 2)) !=
                                   short_options.end();
}

// --sbatch-args words as #SBATCH lines: each option starts a line, a word that is not an option
// is the value of the one before it ("--mem 0" -> "--mem 0"). Every word is letters, digits and
// '_' '.' ',' ':' '=' '@' '/' '+' '%' '-' only: nothing a shell or sbatch's own line splitting
// could read as anything but one word.
std::vector<std::string> sbatch_extra_lines(const std::vector<std::string>& words) {
    static const std::regex plain_word(R"([A-Za-z0-9_.,:=@/+%-]+)");
    std::vector<std::string> lines;
    for (const auto& word : words) {
        if (!std::regex_match(word, plain_word)) {
            const auto bad = std::find_if(word.begin(), word.end(), [](char c) {
                return !std::regex_match(std::string(1, c), plain_word);
            });
            throw InputError(fmt::format("--sbatch-args: '{}' contains '{}': letters, digits and _ . , : = @ / + % - "
                                         "only",
                                         escape_control(word), escape_control(std::string(1, *bad))));
        }
        if (word.front() == '-') {
            if (word == "-" || word == "--")
                throw InputError(fmt::format("--sbatch-args: '{}' is not an sbatch option", word));
            if (owned_by_generator(word))
                throw InputError(fmt::format("--sbatch-args: '{}' is set by shakedown's own options (--nodes, --time, "
                                             "--account, ...): give it there",
                                             word));
            lines.push_back(word);
        } else {
            if (lines.empty())
                throw InputError(fmt::format("--sbatch-args: '{}' is not an option (they start with '-')", word));
            lines.back() += " " + word;
        }
    }
    return lines;
}

// Replaces every @NAME@ (NAME of capitals and '_') with its value; shell text such as
// "${array[@]}" is left alone because '@' is not followed by a name there.
std::string substitute(std::string_view text, const std::map<std::string, std::string>& values) {
    std::string result;
    std::size_t position = 0;
    while (position < text.size()) {
        const auto at = text.find('@', position);
        if (at == std::string_view::npos) break;
        auto end = at + 1;
        while (end < text.size() && ((text[end] >= 'A' && text[end] <= 'Z') || text[end] == '_')) ++end;
        result.append(text.substr(position, at - position));
        if (end > at + 1 && end < text.size() && text[end] == '@') {
            const std::string name(text.substr(at + 1, end - at - 1));
            const auto found = values.find(name);
            if (found == values.end()) throw std::logic_error("job template uses unknown placeholder @" + name + "@");
            result += found->second;
            position = end + 1;
        } else {
            result += '@';
            position = at + 1;
        }
    }
    result.append(text.substr(std::min(position, text.size())));
    return result;
}

std::string_view template_text(const std::string& name) {
    const auto text = embedded_template(name);
    if (!text) throw std::logic_error("job template " + name + " was not embedded at build time");
    return *text;
}

std::string join_quoted(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& word : words) {
        if (!text.empty()) text += ' ';
        text += shell_quote(word);
    }
    return text;
}

}  // namespace

std::vector<std::string> job_suites() {
    std::vector<std::string> names;
    for (const auto& suite : suite_templates) names.emplace_back(suite.name);
    return names;
}

long default_analysis_reserve_s(long time_limit_s) {
    // The analyzer reads every rank's trace: seconds for a few nodes, a minute or more for
    // hundreds; a tenth of the limit scales with the run's size without eating a short job.
    const long reserve = std::clamp(time_limit_s / 10, 60L, 600L);
    return std::max(1L, std::min(reserve, time_limit_s / 2));
}

long run_step_kill_after_s(long analysis_reserve_s) { return std::clamp(analysis_reserve_s / 4, 1L, 30L); }

long parse_time_limit(std::string_view text) {
    static const std::regex minutes_only(R"(\d{1,7})");
    static const std::regex clock(R"((?:(\d{1,4})-)?(\d{1,5}):([0-5]\d):([0-5]\d))");
    const std::string value(text);
    std::smatch match;
    long seconds = 0;
    if (std::regex_match(value, match, minutes_only)) {
        seconds = std::stol(value) * 60;
    } else if (std::regex_match(value, match, clock)) {
        const long days = match[1].matched ? std::stol(match[1]) : 0;
        seconds = ((days * 24 + std::stol(match[2])) * 60 + std::stol(match[3])) * 60 + std::stol(match[4]);
    } else if (!value.empty() && value.front() == '-') {
        throw InputError(fmt::format("time limit '{}' is negative: give minutes or HH:MM:SS", value));
    } else {
        throw InputError(fmt::format("time limit '{}' is not minutes or [D-]HH:MM:SS", value));
    }
    if (seconds <= 0) throw InputError(fmt::format("time limit '{}' is zero: give minutes or HH:MM:SS", value));
    return seconds;
}

std::string format_time_limit(long seconds) {
    const long days = seconds / 86400;
    const long hours = seconds % 86400 / 3600;
    const auto clock = fmt::format("{:02}:{:02}:{:02}", hours, seconds % 3600 / 60, seconds % 60);
    return days > 0 ? fmt::format("{}-{}", days, clock) : clock;
}

Launcher parse_launcher(std::string_view name) {
    if (name == "srun") return Launcher::srun;
    if (name == "mpirun") return Launcher::mpirun;
    throw InputError(fmt::format("unknown launcher '{}': use srun or mpirun", name));
}

std::string_view launcher_name(Launcher launcher) { return launcher == Launcher::srun ? "srun" : "mpirun"; }

JobSpec validate_job_options(const JobOptions& options) {
    JobSpec job;

    const auto suites = job_suites();
    if (std::find(suites.begin(), suites.end(), options.suite) == suites.end())
        throw InputError(fmt::format("unknown suite '{}': use one of {}", options.suite, fmt::join(suites, ", ")));
    job.suite = options.suite;

    if (!options.nodes && !options.nodelist) throw InputError("give the nodes: --nodes N or --nodelist HOSTLIST");
    if (options.nodes && (*options.nodes < 1 || *options.nodes > max_nodes))
        throw InputError(fmt::format("--nodes {} is out of range 1..{}", *options.nodes, max_nodes));
    if (options.nodelist) {
        const auto names = expand_hostlist(*options.nodelist);
        std::set<std::string> seen;
        for (const auto& name : names) {
            require_valid_node_name(name, "node name in --nodelist");
            if (!seen.insert(name).second)
                throw InputError(fmt::format("node '{}' appears twice in --nodelist '{}'", name, *options.nodelist));
        }
        const auto count = static_cast<int>(names.size());
        if (count > max_nodes) throw InputError(fmt::format("--nodelist names more than {} nodes", max_nodes));
        if (options.nodes && *options.nodes != count)
            throw InputError(fmt::format("--nodes {} disagrees with --nodelist '{}' ({} nodes)", *options.nodes,
                                         *options.nodelist, count));
        job.nodes = count;
        job.nodelist = compress_hostlist(names);
    } else {
        job.nodes = *options.nodes;
    }

    static const std::regex partition_name(R"([A-Za-z0-9_.-]{1,64})");
    if (!options.partition.empty() && !std::regex_match(options.partition, partition_name))
        throw InputError(fmt::format("invalid partition name '{}'", options.partition));
    job.partition = options.partition;

    if (options.time_limit) {
        job.time_limit_s = parse_time_limit(*options.time_limit);
    } else {
        const auto* suite = std::find_if(suite_templates.begin(), suite_templates.end(),
                                         [&](const SuiteTemplate& entry) { return entry.name == job.suite; });
        job.time_limit_s = suite->default_time_limit_s;
    }
    if (options.analysis_reserve_s) {
        if (*options.analysis_reserve_s < 1)
            throw InputError(fmt::format("--analysis-reserve {} must be at least 1 second", *options.analysis_reserve_s));
        if (*options.analysis_reserve_s >= job.time_limit_s)
            throw InputError(fmt::format("--analysis-reserve {} s leaves no time for the run in the time limit {}",
                                         *options.analysis_reserve_s, format_time_limit(job.time_limit_s)));
        job.analysis_reserve_s = *options.analysis_reserve_s;
    } else {
        job.analysis_reserve_s = default_analysis_reserve_s(job.time_limit_s);
    }

    if (options.gpus_per_node < 0 || options.gpus_per_node > max_gpus_per_node)
        throw InputError(fmt::format("--gpus-per-node {} is out of range 0..{}", options.gpus_per_node, max_gpus_per_node));
    job.gpus_per_node = options.gpus_per_node;
    job.ranks_per_node = options.ranks_per_node.value_or(std::max(1, options.gpus_per_node));
    if (job.ranks_per_node < 1 || job.ranks_per_node > max_ranks_per_node)
        throw InputError(
            fmt::format("--ranks-per-node {} is out of range 1..{}", job.ranks_per_node, max_ranks_per_node));

    if (options.out_parent.empty()) throw InputError("--out is empty");
    job.out_parent = std::filesystem::absolute(options.out_parent).lexically_normal();
    if (job.out_parent.has_filename() == false && job.out_parent != job.out_parent.root_path())
        job.out_parent = job.out_parent.parent_path();  // "runs/" -> "runs"
    require_plain_path(job.out_parent, "--out");

    job.launcher = options.launcher;
    require_plain_arguments(options.launcher_args, "--launcher-args");
    require_plain_arguments(options.run_args, "--run-args");
    require_plain_arguments(options.analyzer_args, "--analyzer-args");
    job.launcher_args = options.launcher_args;
    job.run_args = options.run_args;
    // The GPUs asked of Slurm are the GPUs the run must find: recorded as its expected profile, so
    // a node with fewer fails instead of waiving its GPU tests (unless a profile says more).
    if (job.gpus_per_node > 0 && std::find(job.run_args.begin(), job.run_args.end(), "--profile") == job.run_args.end())
        job.run_args.insert(job.run_args.begin(), {"--gpus-per-node", std::to_string(job.gpus_per_node)});
    job.analyzer_args = options.analyzer_args;
    job.shakedown_binary = resolve_binary(options.shakedown_binary, "--shakedown");
    job.analyzer_binary = resolve_binary(options.analyzer_binary, "--analyzer");

    if (!options.account.empty()) require_slurm_name(options.account, "--account");
    if (!options.qos.empty()) require_slurm_name(options.qos, "--qos");
    if (!options.reservation.empty()) require_slurm_name(options.reservation, "--reservation");
    if (!options.constraint.empty()) require_constraint(options.constraint);
    job.account = options.account;
    job.qos = options.qos;
    job.reservation = options.reservation;
    job.constraint = options.constraint;
    if (options.exclude) {
        const auto excluded = expand_hostlist(*options.exclude);
        for (const auto& name : excluded) require_valid_node_name(name, "node name in --exclude");
        if (options.nodelist) {
            // A set: both lists may hold up to a million names, and a scan per excluded name was
            // their product (95 s for 100k chosen and 983k excluded).
            const auto listed = expand_hostlist(*options.nodelist);
            const std::unordered_set<std::string> chosen(listed.begin(), listed.end());
            for (const auto& name : excluded)
                if (chosen.contains(name))
                    throw InputError(fmt::format("node '{}' is both in --nodelist and in --exclude", name));
        }
        job.exclude = compress_hostlist(excluded);
    }
    job.exclusive = options.exclusive;
    job.sbatch_extra = sbatch_extra_lines(options.sbatch_args);

    // Slurm sends the signal up to a minute early (its event loop's resolution), and one at or
    // past the limit would come at the start: it must fall inside the job.
    job.signal_s = options.signal_s.value_or(job.analysis_reserve_s);
    if (job.signal_s < 0 || job.signal_s > max_signal_s || (job.signal_s > 0 && job.signal_s >= job.time_limit_s))
        throw InputError(fmt::format("--signal {} must be 0 (none) or 1..{} seconds, below the time limit {}",
                                     job.signal_s, std::min(max_signal_s, job.time_limit_s - 1),
                                     format_time_limit(job.time_limit_s)));
    return job;
}

std::vector<std::string> launcher_command(const JobSpec& job) {
    std::vector<std::string> command;
    if (job.launcher == Launcher::srun) {
        // PMIx is how most sites start MPI under Slurm; a rank that dies ends the step at once
        // instead of leaving the others waiting in a collective until the time limit.
        command = {"srun", "--mpi=pmix", "--kill-on-bad-exit=1"};
    } else {
        command = {"mpirun", "--map-by", fmt::format("ppr:{}:node", job.ranks_per_node)};
    }
    command.insert(command.end(), job.launcher_args.begin(), job.launcher_args.end());
    return command;
}

std::string render_job_script(const JobSpec& job) {
    std::vector<std::string> sbatch = {fmt::format("--nodes={}", job.nodes)};
    if (job.nodelist) sbatch.push_back("--nodelist=" + *job.nodelist);
    sbatch.push_back(fmt::format("--ntasks-per-node={}", job.ranks_per_node));
    if (!job.partition.empty()) sbatch.push_back("--partition=" + job.partition);
    sbatch.push_back("--time=" + format_time_limit(job.time_limit_s));
    if (job.gpus_per_node > 0) sbatch.push_back(fmt::format("--gpus-per-node={}", job.gpus_per_node));
    if (!job.account.empty()) sbatch.push_back("--account=" + job.account);
    if (!job.qos.empty()) sbatch.push_back("--qos=" + job.qos);
    if (!job.reservation.empty()) sbatch.push_back("--reservation=" + job.reservation);
    if (!job.constraint.empty()) sbatch.push_back("--constraint=" + job.constraint);
    if (job.exclude) sbatch.push_back("--exclude=" + *job.exclude);
    // Figures measured beside another job's processes judge that job, not the node.
    if (job.exclusive) sbatch.push_back("--exclusive");
    // Before the time limit Slurm signals the batch shell alone (B:, not the ranks, whose default
    // for USR1 is to die): its trap stops the run step and the analysis judges what ran, also
    // when the limit was shortened after submission or the run overran its own step limit.
    if (job.signal_s > 0) sbatch.push_back(fmt::format("--signal=B:USR1@{}", job.signal_s));
    // A requeued job runs the script again from the start: a second run in another folder, the
    // first attempt's verdict lost and `submit --wait` waiting on through the requeue. An
    // acceptance job that lost a node has its answer (that node); it is never to be restarted.
    sbatch.push_back("--no-requeue");
    // Without --no-kill Slurm revokes the whole allocation when one node fails, and the batch
    // script dies with it before the analyzer has named the node. With it only the step on the
    // failed node dies (srun's default); the script goes on to record Slurm's node states and
    // analyse. (Nothing survives the loss of the first node, where the script itself runs.)
    sbatch.push_back("--no-kill");
    sbatch.push_back(fmt::format("--output={}/slurm-%x-%j.out", job.out_parent.string()));
    // The job starts in the output folder (which every node must see anyway), not in whatever
    // folder sbatch was called from: that one may exist only on the submitting machine.
    sbatch.push_back(fmt::format("--chdir={}", job.out_parent.string()));
    sbatch.insert(sbatch.end(), job.sbatch_extra.begin(), job.sbatch_extra.end());
    std::string sbatch_lines;
    for (const auto& option : sbatch) sbatch_lines += (sbatch_lines.empty() ? "" : "\n") + ("#SBATCH " + option);

    const std::map<std::string, std::string> values = {
        {"SBATCH_OPTIONS", sbatch_lines},
        {"GENERATED_BY", fmt::format("generated by `shakedown slurm generate` (launcher {}): change the options, "
                                     "not this file",
                                     launcher_name(job.launcher))},
        {"SUITE", job.suite},
        {"SHAKEDOWN", shell_quote(job.shakedown_binary.string())},
        {"ANALYZER", shell_quote(job.analyzer_binary.string())},
        {"OUT_PARENT", shell_quote(job.out_parent.string())},
        {"LAUNCHER", join_quoted(launcher_command(job))},
        {"LAUNCHER_KIND", std::string(launcher_name(job.launcher))},
        {"RANKS_PER_NODE", std::to_string(job.ranks_per_node)},
        {"RUN_ARGS", join_quoted(job.run_args)},
        {"ANALYZER_ARGS", join_quoted(job.analyzer_args)},
        {"TIME_LIMIT_S", std::to_string(job.time_limit_s)},
        {"ANALYSIS_RESERVE_S", std::to_string(job.analysis_reserve_s)},
        {"KILL_AFTER_S", std::to_string(run_step_kill_after_s(job.analysis_reserve_s))},
        {"SIGNAL_S", std::to_string(job.signal_s)},
    };
    // The body goes in first and everything is substituted once: values are never rescanned,
    // so text in a user's path or argument can never act as a placeholder.
    std::string script(template_text(job.suite + ".sbatch"));
    const std::string body_marker = "@JOB_BODY@";
    const auto marker = script.find(body_marker);
    if (marker == std::string::npos) throw std::logic_error("job template " + job.suite + " has no @JOB_BODY@");
    script.replace(marker, body_marker.size(), template_text("job_body.sh"));
    return substitute(script, values);
}

std::string shell_quote(std::string_view word) {
    std::string quoted = "'";
    for (const char c : word) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

}  // namespace shakedown::slurm
