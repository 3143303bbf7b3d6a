#include "core/process_runner.hpp"
#include "slurm/job_script.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace shakedown::slurm {
namespace {

JobOptions three_nodes() {
    JobOptions options;
    options.nodelist = "node[1-3]";
    options.out_parent = "/scratch/acceptance";
    options.shakedown_binary = "/opt/shakedown/bin/shakedown";
    options.analyzer_binary = "/opt/shakedown/bin/shakedown-analyze";
    return options;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

void expect_input_error(const JobOptions& options, const std::string& message_part) {
    try {
        validate_job_options(options);
        FAIL() << "accepted; expected an error containing '" << message_part << "'";
    } catch (const InputError& error) {
        EXPECT_TRUE(contains(error.what(), message_part)) << error.what();
    }
}

TEST(TimeLimit, MinutesAndClockForms) {
    EXPECT_EQ(parse_time_limit("5"), 300);
    EXPECT_EQ(parse_time_limit("90"), 5400);
    EXPECT_EQ(parse_time_limit("00:05:00"), 300);
    EXPECT_EQ(parse_time_limit("1:30:15"), 5415);
    EXPECT_EQ(parse_time_limit("2-01:00:00"), 2 * 86400 + 3600);
    EXPECT_EQ(parse_time_limit("36:00:00"), 36 * 3600);
}

TEST(TimeLimit, RejectsNegativeZeroAndMalformed) {
    for (const auto* bad : {"-5", "-00:05:00", "0", "00:00:00", "0-00:00:00", "", "5m", "1:60:00", "1:00:60", "05:00",
                            "1:2:3", "abc", "1.5", " 5", "12345678"}) {
        EXPECT_THROW(parse_time_limit(bad), InputError) << bad;
    }
    try {
        parse_time_limit("-5");
    } catch (const InputError& error) {
        EXPECT_TRUE(contains(error.what(), "negative")) << error.what();
    }
    try {
        parse_time_limit("0");
    } catch (const InputError& error) {
        EXPECT_TRUE(contains(error.what(), "zero")) << error.what();
    }
}

TEST(TimeLimit, FormatsForSlurm) {
    EXPECT_EQ(format_time_limit(300), "00:05:00");
    EXPECT_EQ(format_time_limit(5415), "01:30:15");
    EXPECT_EQ(format_time_limit(2 * 86400 + 3600), "2-01:00:00");
}

TEST(Launcher, ParsesKnownNames) {
    EXPECT_EQ(parse_launcher("srun"), Launcher::srun);
    EXPECT_EQ(parse_launcher("mpirun"), Launcher::mpirun);
    EXPECT_THROW(parse_launcher("mpiexec.hydra"), InputError);
}

TEST(ShellQuote, KeepsEveryCharacterLiteral) {
    EXPECT_EQ(shell_quote("plain"), "'plain'");
    EXPECT_EQ(shell_quote("it's $HOME `x`"), "'it'\\''s $HOME `x`'");
}

TEST(ValidateJob, NodelistGivesTheCountAndTheCompressedList) {
    const auto job = validate_job_options(three_nodes());
    EXPECT_EQ(job.nodes, 3);
    EXPECT_EQ(job.nodelist, "node[1-3]");
    EXPECT_EQ(job.suite, "quick");
    EXPECT_EQ(job.time_limit_s, 15 * 60);  // the quick suite's default
    EXPECT_EQ(job.ranks_per_node, 1);
}

TEST(ValidateJob, RanksPerNodeDefaultsToOnePerGpu) {
    auto options = three_nodes();
    options.gpus_per_node = 8;
    EXPECT_EQ(validate_job_options(options).ranks_per_node, 8);
    options.ranks_per_node = 2;
    EXPECT_EQ(validate_job_options(options).ranks_per_node, 2);
}

TEST(ValidateJob, SuiteDefaultsDiffer) {
    auto options = three_nodes();
    options.suite = "burnin";
    EXPECT_GT(validate_job_options(options).time_limit_s, 3600);
    options.time_limit = "30";
    EXPECT_EQ(validate_job_options(options).time_limit_s, 1800);
}

TEST(ValidateJob, RelativeOutputFolderMadeAbsolute) {
    auto options = three_nodes();
    options.out_parent = "runs/";
    const auto job = validate_job_options(options);
    EXPECT_TRUE(job.out_parent.is_absolute());
    EXPECT_EQ(job.out_parent.filename(), "runs");
}

TEST(ValidateJob, BareBinaryNamesStayForPathLookup) {
    auto options = three_nodes();
    options.shakedown_binary = "shakedown";
    options.analyzer_binary = "bin/shakedown-analyze";
    const auto job = validate_job_options(options);
    EXPECT_EQ(job.shakedown_binary, "shakedown");
    EXPECT_TRUE(job.analyzer_binary.is_absolute());
}

TEST(ValidateJob, RejectsBadInputWithTheOptionNamed) {
    auto options = three_nodes();
    options.nodelist.reset();
    expect_input_error(options, "--nodes N or --nodelist");

    options = three_nodes();
    options.nodelist = "node[3-1]";
    expect_input_error(options, "invalid hostlist 'node[3-1]'");

    options.nodelist = "-node[1-2]";  // a name Slurm accepts, but one that would read as an option
    expect_input_error(options, "invalid node name in --nodelist '-node1'");

    options.nodelist = "node1,node[1-2]";
    expect_input_error(options, "node 'node1' appears twice");

    options = three_nodes();
    options.nodes = 4;
    expect_input_error(options, "--nodes 4 disagrees");

    options = three_nodes();
    options.nodelist.reset();
    options.nodes = 0;
    expect_input_error(options, "--nodes 0 is out of range");

    options = three_nodes();
    options.suite = "fast";
    expect_input_error(options, "unknown suite 'fast': use one of quick, full, burnin, pairwise");

    options = three_nodes();
    options.partition = "gpu;rm";
    expect_input_error(options, "invalid partition name");

    options = three_nodes();
    options.time_limit = "-10";
    expect_input_error(options, "negative");

    options = three_nodes();
    options.gpus_per_node = -1;
    expect_input_error(options, "--gpus-per-node -1");

    options = three_nodes();
    options.ranks_per_node = 0;
    expect_input_error(options, "--ranks-per-node 0");

    options = three_nodes();
    options.out_parent = "/scratch/my runs";
    expect_input_error(options, "must not contain spaces");

    options.out_parent = "/scratch/run%j";
    expect_input_error(options, "'%'");

    options = three_nodes();
    options.launcher_args = {"--mca", "btl\nself"};
    expect_input_error(options, "control character");
}

TEST(RenderJob, SrunScriptHasTheAllocationAndThePmixLaunch) {
    auto options = three_nodes();
    options.partition = "batch";
    options.time_limit = "00:07:30";
    const auto script = render_job_script(validate_job_options(options));
    EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
    for (const auto* line : {"#SBATCH --job-name=shakedown-quick\n", "#SBATCH --nodes=3\n",
                             "#SBATCH --nodelist=node[1-3]\n", "#SBATCH --ntasks-per-node=1\n",
                             "#SBATCH --partition=batch\n", "#SBATCH --time=00:07:30\n",
                             "#SBATCH --output=/scratch/acceptance/slurm-%x-%j.out\n",
                             "#SBATCH --chdir=/scratch/acceptance\n", "#SBATCH --no-requeue\n",
                             "launcher=('srun' '--mpi=pmix' '--kill-on-bad-exit=1')\n",
                             "shakedown='/opt/shakedown/bin/shakedown'\n",
                             "analyzer='/opt/shakedown/bin/shakedown-analyze'\n",
                             "out_parent='/scratch/acceptance'\n",
                             "run --suite quick --out \"$out_parent\" --name \"$run_name\" \"${run_args[@]}\"\n", "run_args=()\n",
                             "job_id=${SLURM_JOB_ID:?", "run_name=\"quick-job${job_id}\"\n",
                             "first_analysis=$(\"$analyzer\" \"$run_folder\" --confirm \"${analyzer_args[@]}\")\n",
                             "\"$analyzer\" \"$run_folder\" --confirmation \"${out_parent}/${name}\" \"${analyzer_args[@]}\"\n",
                             "launcher_kind=srun\n", "ranks_per_node=1\n", "analyzer_args=()\n", "exit \"$analyze_status\"\n"})
        EXPECT_TRUE(contains(script, line)) << line << "\n---\n" << script;
    EXPECT_FALSE(contains(script, "--gpus-per-node"));
    // Every placeholder replaced; the shell's own "[@]" left alone.
    EXPECT_FALSE(contains(script, "@SUITE@"));
    EXPECT_FALSE(contains(script, "@JOB_BODY@"));
    EXPECT_TRUE(contains(script, "\"${launcher[@]}\""));
}

// An acceptance job is never requeued (a second run would hide the first one's verdict), and one
// failed node must not revoke the allocation before the analyzer has named it.
TEST(RenderJob, NeverRequeuedAndKeptWhenANodeFails) {
    const auto script = render_job_script(validate_job_options(three_nodes()));
    EXPECT_TRUE(contains(script, "#SBATCH --no-requeue\n")) << script;
    EXPECT_TRUE(contains(script, "#SBATCH --no-kill\n")) << script;
    // No errexit in any spelling (set -e, set -eu, set -o errexit): a failing step must not skip
    // the analysis.
    std::istringstream lines(script);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("set ", 0) != 0) continue;
        EXPECT_FALSE(contains(line, "errexit")) << line;
        std::istringstream words(line.substr(4));
        for (std::string word; words >> word;)
            EXPECT_FALSE(word.size() > 1 && word[0] == '-' && word[1] != '-' && contains(word, "e")) << line;
    }
    EXPECT_TRUE(contains(script, "\nset -u -o pipefail\n")) << script;
}

TEST(RenderJob, RunStepEndsBeforeTheLimitToLeaveTimeForTheAnalysis) {
    auto options = three_nodes();
    options.time_limit = "00:15:00";
    auto script = render_job_script(validate_job_options(options));
    EXPECT_TRUE(contains(script, "job_time_limit_s=900\n")) << script;
    EXPECT_TRUE(contains(script, "analysis_reserve_s=90\n")) << script;
    EXPECT_TRUE(contains(script, "kill_after_s=22\n")) << script;
    EXPECT_TRUE(contains(script, "run_limit_s=$((job_time_limit_s - analysis_reserve_s - SECONDS))\n")) << script;
    EXPECT_TRUE(contains(script, "run_step timeout --kill-after=\"${kill_after_s}\" \"$run_limit_s\" \\\n    \"${launcher[@]}\" \"$shakedown\" run"))
        << script;
    options.analysis_reserve_s = 300;
    script = render_job_script(validate_job_options(options));
    EXPECT_TRUE(contains(script, "analysis_reserve_s=300\n")) << script;
    EXPECT_TRUE(contains(script, "kill_after_s=30\n")) << script;
}

TEST(AnalysisReserve, DefaultsScaleWithTheLimit) {
    EXPECT_EQ(default_analysis_reserve_s(15 * 60), 90);    // a tenth
    EXPECT_EQ(default_analysis_reserve_s(8 * 60), 60);     // at least a minute
    EXPECT_EQ(default_analysis_reserve_s(60), 30);         // never more than half
    EXPECT_EQ(default_analysis_reserve_s(4 * 3600), 600);  // at most ten minutes
    EXPECT_EQ(run_step_kill_after_s(60), 15);
    EXPECT_EQ(run_step_kill_after_s(2), 1);
    EXPECT_EQ(run_step_kill_after_s(600), 30);
}

TEST(AnalysisReserve, MustLeaveTimeForTheRun) {
    auto options = three_nodes();
    options.time_limit = "10";
    options.analysis_reserve_s = 600;
    expect_input_error(options, "--analysis-reserve 600 s leaves no time for the run in the time limit 00:10:00");
    options.analysis_reserve_s = 0;
    expect_input_error(options, "--analysis-reserve 0 must be at least 1 second");
    options.analysis_reserve_s = 599;
    EXPECT_EQ(validate_job_options(options).analysis_reserve_s, 599);
}

TEST(RenderJob, MpirunScriptMapsRanksPerNodeAndAddsArguments) {
    auto options = three_nodes();
    options.launcher = Launcher::mpirun;
    options.gpus_per_node = 4;
    options.launcher_args = {"--mca", "btl", "self,tcp"};
    options.run_args = {"--config", "/etc/shakedown/site.yaml"};
    options.analyzer_args = {"--thresholds", "/etc/shakedown/t.yaml"};
    options.suite = "pairwise";
    const auto script = render_job_script(validate_job_options(options));
    EXPECT_TRUE(contains(script, "launcher=('mpirun' '--map-by' 'ppr:4:node' '--mca' 'btl' 'self,tcp')\n")) << script;
    EXPECT_TRUE(contains(script, "#SBATCH --gpus-per-node=4\n"));
    EXPECT_TRUE(contains(script, "#SBATCH --ntasks-per-node=4\n"));
    EXPECT_TRUE(contains(script, "#SBATCH --job-name=shakedown-pairwise\n"));
    // The GPUs asked of Slurm are the GPUs the run must find (its expected profile).
    EXPECT_TRUE(contains(script, "run_args=('--gpus-per-node' '4' '--config' '/etc/shakedown/site.yaml')\n")) << script;
    EXPECT_TRUE(contains(script, "analyzer_args=('--thresholds' '/etc/shakedown/t.yaml')\n")) << script;
}

TEST(RenderJob, AProfileInTheRunArgumentsIsNotOverridden) {
    auto options = three_nodes();
    options.gpus_per_node = 8;
    options.run_args = {"--profile", "/etc/shakedown/site-profile.yaml"};
    const auto script = render_job_script(validate_job_options(options));
    EXPECT_TRUE(contains(script, "run_args=('--profile' '/etc/shakedown/site-profile.yaml')\n")) << script;
    options.gpus_per_node = 0;
    options.run_args = {};
    EXPECT_TRUE(contains(render_job_script(validate_job_options(options)), "run_args=()\n"));
}

TEST(RenderJob, EverySuiteHasATemplate) {
    for (const auto& suite : job_suites()) {
        auto options = three_nodes();
        options.suite = suite;
        const auto script = render_job_script(validate_job_options(options));
        EXPECT_TRUE(contains(script, "#SBATCH --job-name=shakedown-" + suite + "\n")) << suite;
        EXPECT_TRUE(contains(script, "run --suite " + suite + " ")) << suite;
    }
}

TEST(RenderJob, HostileArgumentsStayLiteralWords) {
    auto options = three_nodes();
    options.run_args = {"--tag", "x'; rm -rf / #", "@SUITE@"};
    const auto script = render_job_script(validate_job_options(options));
    EXPECT_TRUE(contains(script, "'--tag' 'x'\\''; rm -rf / #' '@SUITE@'")) << script;
}

}  // namespace
}  // namespace shakedown::slurm

namespace shakedown::slurm {
namespace {

std::vector<std::string> sbatch_lines(const std::string& script) {
    std::vector<std::string> lines;
    std::istringstream in(script);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("#SBATCH ", 0) == 0) lines.push_back(line.substr(8));
    return lines;
}

bool has_line(const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST(RenderJob, AccountQosReservationConstraintExcludeAsSbatchLines) {
    auto options = three_nodes();
    options.nodelist.reset();
    options.nodes = 3;
    options.account = "acceptance";
    options.qos = "high";
    options.reservation = "maint_2026-12";
    options.constraint = "[a100|h200]&ib";
    options.exclude = "node[7-8],node10";
    const auto lines = sbatch_lines(render_job_script(validate_job_options(options)));
    EXPECT_TRUE(has_line(lines, "--account=acceptance"));
    EXPECT_TRUE(has_line(lines, "--qos=high"));
    EXPECT_TRUE(has_line(lines, "--reservation=maint_2026-12"));
    EXPECT_TRUE(has_line(lines, "--constraint=[a100|h200]&ib"));
    EXPECT_TRUE(has_line(lines, "--exclude=node[7-8,10]"));
    EXPECT_TRUE(has_line(lines, "--exclusive"));
}

TEST(RenderJob, NoneOfTheOptionalLinesWhenNotGiven) {
    const auto lines = sbatch_lines(render_job_script(validate_job_options(three_nodes())));
    for (const auto& line : lines)
        for (const auto* option : {"--account", "--qos", "--reservation", "--constraint", "--exclude"})
            EXPECT_NE(line.rfind(option, 0), 0u) << line;
    EXPECT_EQ(std::count(lines.begin(), lines.end(), "--exclusive"), 1);
}

TEST(RenderJob, NoExclusiveLeavesTheLineOut) {
    auto options = three_nodes();
    options.exclusive = false;
    EXPECT_FALSE(has_line(sbatch_lines(render_job_script(validate_job_options(options))), "--exclusive"));
}

TEST(RenderJob, SbatchArgsBecomeOneLinePerOptionWithItsValue) {
    auto options = three_nodes();
    options.sbatch_args = {"--mem=0", "--gres", "gpu:h200:8", "--mail-user=ops@site.org", "--switches=1@10:00",
                           "--gpus=8"};  // --gpus is an option of its own, not --gpus-per-node
    const auto lines = sbatch_lines(render_job_script(validate_job_options(options)));
    EXPECT_TRUE(has_line(lines, "--mem=0"));
    EXPECT_TRUE(has_line(lines, "--gres gpu:h200:8"));
    EXPECT_TRUE(has_line(lines, "--mail-user=ops@site.org"));
    EXPECT_TRUE(has_line(lines, "--switches=1@10:00"));
    EXPECT_TRUE(has_line(lines, "--gpus=8"));
}

TEST(ValidateJob, SbatchArgsWithShellCharactersOrOwnedOptionsAreRefused) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"--comment=$(reboot)", "contains '$'"},
        {"--comment=a;b", "contains ';'"},
        {"--comment=`id`", "contains '`'"},
        {"--comment=\"x\"", "contains '\"'"},
        {"--comment=a|b", "contains '|'"},
        {"--comment=a\nb", "contains '\\x0a'"},
        {"--time=5", "set by shakedown's own options"},
        {"-t5", "set by shakedown's own options"},
        {"--output=/tmp/x", "set by shakedown's own options"},
        {"--signal=USR2@5", "set by shakedown's own options"},
        {"-A", "set by shakedown's own options"},
        // Abbreviations sbatch's getopt_long accepts for the owned options.
        {"--part=debug", "set by shakedown's own options"},
        {"--outp=/tmp/x", "set by shakedown's own options"},
        {"--chd=/tmp", "set by shakedown's own options"},
        {"--nodel=node1", "set by shakedown's own options"},
        {"--sig=USR1@5", "set by shakedown's own options"},
        {"--wra=id", "set by shakedown's own options"},
        {"gpu:8", "is not an option"},
        {"--", "is not an sbatch option"},
    };
    for (const auto& [word, message] : cases) {
        auto options = three_nodes();
        options.sbatch_args = {word};
        SCOPED_TRACE(word);
        expect_input_error(options, message);
    }
}

TEST(ValidateJob, AccountQosConstraintExcludeRefusedWhenMalformed) {
    auto options = three_nodes();
    options.account = "a b";
    expect_input_error(options, "invalid --account 'a b'");
    options = three_nodes();
    options.qos = "hi$gh";
    expect_input_error(options, "invalid --qos");
    options = three_nodes();
    options.reservation = "r\n1";
    expect_input_error(options, "invalid --reservation");
    options = three_nodes();
    options.constraint = "a100\"&ib";
    expect_input_error(options, "invalid --constraint");
    options = three_nodes();
    options.exclude = "node[3-1]";
    expect_input_error(options, "invalid hostlist 'node[3-1]'");
    options = three_nodes();
    options.exclude = "node[3-4]";
    expect_input_error(options, "node 'node3' is both in --nodelist and in --exclude");
}

TEST(RenderJob, SlurmSignalsTheBatchShellTheReserveBeforeTheLimit) {
    auto options = three_nodes();
    options.time_limit = "00:15:00";
    auto job = validate_job_options(options);
    EXPECT_EQ(job.signal_s, 90);
    auto script = render_job_script(job);
    EXPECT_TRUE(has_line(sbatch_lines(script), "--signal=B:USR1@90")) << script;
    EXPECT_TRUE(contains(script, "signal_s=90\n"));
    EXPECT_TRUE(contains(script, "' USR1\n")) << script;
    options.signal_s = 240;
    EXPECT_TRUE(has_line(sbatch_lines(render_job_script(validate_job_options(options))), "--signal=B:USR1@240"));
    options.signal_s = 0;
    const auto lines = sbatch_lines(render_job_script(validate_job_options(options)));
    EXPECT_TRUE(std::none_of(lines.begin(), lines.end(), [](const std::string& line) { return line.rfind("--signal", 0) == 0; }));
}

TEST(ValidateJob, SignalMustFallInsideTheJob) {
    auto options = three_nodes();
    options.time_limit = "5";
    options.signal_s = 300;
    expect_input_error(options, "--signal 300 must be 0 (none) or 1..299 seconds");
    options.signal_s = -1;
    expect_input_error(options, "--signal -1");
    options.time_limit = "2-00:00:00";
    options.signal_s = 70000;
    expect_input_error(options, "1..65535");
}

}  // namespace
}  // namespace shakedown::slurm
