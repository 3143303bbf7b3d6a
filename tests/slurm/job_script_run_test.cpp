// The rendered job script run by bash as Slurm would run it, with stand-ins in a temporary
// folder: `srun` drops its options and runs the rest; `shakedown` makes its run folder (and, as
// the real driver, refuses with 2 one that exists), then exits or sleeps as told; `shakedown-analyze`
// notes what it was given and exits as told; `sinfo` reports node3 down. Shows that the analysis
// runs whatever the step did, that the job's exit code is the verdict, that a requeued attempt is
// never mistaken for bad input, and that the step ends in time for the analysis.
#include "core/process_runner.hpp"
#include "slurm/job_script.hpp"
#include "slurm/slurm_nodes.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

namespace shakedown::slurm {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class JobScriptRun : public ::testing::Test {
protected:
    void SetUp() override {
        folder_ = std::filesystem::temp_directory_path() /
                  ("shakedown-job-run-" + std::to_string(::getpid()) + "-" +
                   ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(folder_);
        std::filesystem::create_directories(folder_);
        const auto note = [&](const std::string& name) { return (folder_ / name).string(); };
        write_tool("srun", "#!/bin/sh\necho \"$*\" >> " + note("srun-arguments") + "\n"
                           "while [ \"${1#--}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n");
        write_tool("shakedown", "#!/bin/sh\n"
                                "tests=\n"
                                "while [ $# -gt 0 ]; do case $1 in --out) out=$2; shift ;; --name) name=$2; shift ;;"
                                " --tests) tests=\"$tests $2\"; shift ;; esac; shift; done\n"
                                "echo \"$name\" >> " + note("run-names") + "\n"
                                "echo \"$name:$tests\" >> " + note("run-tests") + "\n"
                                "if [ \"${RUN_MAKES_FOLDER:-1}\" = 1 ]; then\n"
                                "  [ -e \"$out/$name\" ] && { echo \"shakedown: run folder '$out/$name' exists already\" >&2; exit 2; }\n"
                                "  mkdir -p \"$out/$name\"\n"
                                "fi\n"
                                "case $name in *-confirm) [ -n \"${CONFIRM_SLEEP:-}\" ] && exec sleep \"$CONFIRM_SLEEP\" ;; esac\n"
                                "[ -n \"${RUN_SLEEP:-}\" ] && exec sleep \"$RUN_SLEEP\"\n"
                                "exit \"${RUN_EXIT:-0}\"\n");
        // The first analysis (--confirm) names what CONFIRM_TESTS / CONFIRM_NODES say; the final
        // one (--confirmation AGAIN) exits FINAL_EXIT.
        write_tool("shakedown-analyze", "#!/bin/sh\necho \"$1\" >> " + note("analyzed") + "\n"
                                        "echo \"$*\" >> " + note("analyzer-arguments") + "\n"
                                        "[ -e \"$1/slurm_nodes.txt\" ] && cp \"$1/slurm_nodes.txt\" " + note("nodes-seen") + "\n"
                                        "case \" $* \" in *' --confirmation '*) exit \"${FINAL_EXIT:-0}\" ;; esac\n"
                                        "case \" $* \" in *' --confirm '*) echo \"confirm-tests: ${CONFIRM_TESTS:-}\";"
                                        " echo \"confirm-nodes: ${CONFIRM_NODES:-}\" ;; esac\n"
                                        "exit \"${ANALYZE_EXIT:-0}\"\n");
        write_tool("sinfo", "#!/bin/sh\necho \"$*\" > " + note("sinfo-arguments") + "\n"
                            "[ -n \"${SINFO_FAIL:-}\" ] && { echo 'sinfo: error: Unable to contact slurm controller' >&2; exit 1; }\n"
                            "printf 'node3 down* Not responding\\nnode1 allocated none\\nnode2 allocated none\\nnode1 allocated none\\n'\n");
        render(options());
    }
    void TearDown() override { std::filesystem::remove_all(folder_); }

    JobOptions options() const {
        JobOptions options;
        options.nodelist = "node[1-3]";
        options.out_parent = folder_ / "runs";
        options.shakedown_binary = folder_ / "shakedown";
        options.analyzer_binary = folder_ / "shakedown-analyze";
        return options;
    }
    void render(const JobOptions& options) { write_tool("job.sbatch", render_job_script(validate_job_options(options))); }

    struct Job {
        int exit_code = -1;
        std::string log;
        double seconds = 0;
    };
    // Runs the script with a clean environment: Slurm's variables for job `job_id` and `extra`.
    Job run(const std::string& job_id, const std::vector<std::string>& extra = {}, const std::string& wrapper = {}) {
        std::vector<std::string> argv = {"env", "-i", "PATH=" + folder_.string() + ":/usr/bin:/bin", "SLURM_JOB_ID=" + job_id,
                                         "SLURM_JOB_NUM_NODES=3", "SLURM_JOB_NODELIST=node[1-3]"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        argv.insert(argv.end(), {"bash", (folder_ / "job.sbatch").string()});
        if (!wrapper.empty()) {
            // sh -c WRAPPER sh ARGV...: the wrapper starts "$@" itself (to signal it).
            argv.insert(argv.begin(), {"sh", "-c", wrapper, "sh"});
        }
        const auto started = std::chrono::steady_clock::now();
        const auto result = run_process(argv, 60.0);
        return {result.exit_code, result.out + result.err,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()};
    }
    std::string note(const std::string& name) const {
        std::ifstream in(folder_ / name);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    std::filesystem::path runs() const { return folder_ / "runs"; }

    void write_tool(const std::string& name, const std::string& text) const {
        std::ofstream(folder_ / name) << text;
        std::filesystem::permissions(folder_ / name, std::filesystem::perms::owner_all);
    }
    std::filesystem::path folder_;
};

// The driver's bad input (2) outranks the analyzer; every other step status is the analyzer's.
TEST_F(JobScriptRun, ExitCodeIsTheAnalyzersUnlessTheDriverSaidBadInput) {
    struct Case {
        int run_exit, analyze_exit, job_exit;
    };
    int job = 10;
    for (const auto [run_exit, analyze_exit, job_exit] : {Case{0, 0, 0}, Case{1, 1, 1}, Case{137, 3, 3}, Case{1, 3, 3},
                                                          Case{2, 1, 2}, Case{0, 2, 2}}) {
        const auto id = std::to_string(job++);
        const auto result = run(id, {"RUN_EXIT=" + std::to_string(run_exit), "ANALYZE_EXIT=" + std::to_string(analyze_exit)});
        EXPECT_EQ(result.exit_code, job_exit) << run_exit << " " << analyze_exit << "\n" << result.log;
        EXPECT_TRUE(contains(result.log, "run ended with exit code " + std::to_string(run_exit))) << result.log;
        // The analysis ran on this job's folder whatever the step did.
        EXPECT_TRUE(contains(note("analyzed"), (runs() / ("quick-job" + id)).string() + "\n")) << note("analyzed");
    }
}

TEST_F(JobScriptRun, SlurmsNodeStatesAreRecordedBeforeTheAnalysis) {
    const auto result = run("7", {"RUN_EXIT=137", "ANALYZE_EXIT=3"});
    EXPECT_EQ(result.exit_code, 3) << result.log;
    EXPECT_EQ(note("sinfo-arguments"), "-N -h -n node[1-3] -o %N %T %E\n");
    const auto recorded = note("nodes-seen");  // what the analyzer found in the run folder
    EXPECT_EQ(recorded,
              "# shakedown slurm_nodes v1: job 7, nodes node[1-3], run step exit code 137\n"
              "# NODE STATE REASON: sinfo -N -h -n NODELIST -o '%N %T %E' after the run step\n"
              "node1 allocated none\n"
              "node2 allocated none\n"
              "node3 down* Not responding\n");
    const auto unusable = unusable_nodes(parse_slurm_nodes(recorded));
    ASSERT_EQ(unusable.size(), 1u);
    EXPECT_EQ(unusable[0].node, "node3");
    // The job's log names the node too, in the same words.
    EXPECT_TRUE(contains(result.log, "shakedown: Slurm reports node node3 down* (Not responding)\n")) << result.log;
    EXPECT_FALSE(contains(result.log, "Slurm reports node node1")) << result.log;
}

TEST_F(JobScriptRun, NoSinfoStillAnalyses) {
    const auto result = run("7", {"SINFO_FAIL=1", "ANALYZE_EXIT=1"});
    EXPECT_EQ(result.exit_code, 1) << result.log;
    EXPECT_TRUE(contains(note("nodes-seen"),
                         "# sinfo failed (exit code 1): sinfo: error: Unable to contact slurm controller\n"))
        << note("nodes-seen");
    EXPECT_TRUE(parse_slurm_nodes(note("nodes-seen")).nodes.empty());
}

TEST_F(JobScriptRun, AStepThatDiedBeforeMakingItsFolderIsAnIncompleteRun) {
    auto result = run("7", {"RUN_MAKES_FOLDER=0", "RUN_EXIT=1"});
    EXPECT_EQ(result.exit_code, 3) << result.log;
    EXPECT_TRUE(contains(result.log, "before making " + (runs() / "quick-job7").string())) << result.log;
    EXPECT_EQ(note("analyzed"), "");  // nothing to analyse
    result = run("8", {"RUN_MAKES_FOLDER=0", "RUN_EXIT=2"});
    EXPECT_EQ(result.exit_code, 2) << result.log;  // the driver refused its input
}

// A requeue starts the script again in the same job: the first attempt's folder is there. The
// attempt gets its own folder; exit 2 ("exists already") must never come of it.
TEST_F(JobScriptRun, ARequeuedAttemptGetsAFolderOfItsOwn) {
    auto result = run("7", {"ANALYZE_EXIT=3"});
    EXPECT_EQ(result.exit_code, 3) << result.log;
    result = run("7", {"SLURM_RESTART_COUNT=1", "ANALYZE_EXIT=3"});
    EXPECT_EQ(result.exit_code, 3) << result.log;
    EXPECT_TRUE(contains(result.log, "shakedown: requeued attempt 2 of job 7 (SLURM_RESTART_COUNT=1)")) << result.log;
    EXPECT_EQ(note("run-names"), "quick-job7\nquick-job7-requeue1\n");
    EXPECT_TRUE(std::filesystem::is_directory(runs() / "quick-job7-requeue1"));
    // Even without Slurm's count a taken folder is never reused: the next free number.
    result = run("7", {"ANALYZE_EXIT=0"});
    EXPECT_EQ(result.exit_code, 0) << result.log;
    EXPECT_TRUE(contains(result.log, "exists already (an earlier attempt of job 7): this attempt uses")) << result.log;
    EXPECT_EQ(note("run-names"), "quick-job7\nquick-job7-requeue1\nquick-job7-2\n");
    EXPECT_EQ(note("analyzed"), (runs() / "quick-job7").string() + "\n" + (runs() / "quick-job7-requeue1").string() +
                                    "\n" + (runs() / "quick-job7-2").string() + "\n");
}

// A 60 s job keeping 58 s for the analysis: the step (sleeping 30 s) is stopped after 2 s and
// the analyzer judges what was written; the job ends well before Slurm's limit.
TEST_F(JobScriptRun, AStepPastItsLimitIsStoppedAndAnalysed) {
    auto limited = options();
    limited.time_limit = "1";
    limited.analysis_reserve_s = 58;
    render(limited);
    const auto result = run("7", {"RUN_SLEEP=30", "ANALYZE_EXIT=3"});
    EXPECT_EQ(result.exit_code, 3) << result.log;
    EXPECT_LT(result.seconds, 15) << result.log;
    // The script's clock (bash SECONDS) counts whole seconds from its start, so a start just
    // before a second's end leaves 1 s, not 2: either is right, and the same figure must be
    // the one said when the step is stopped.
    std::smatch limit;
    ASSERT_TRUE(std::regex_search(result.log, limit,
                                  std::regex("run step limited to ([12]) s \\(job limit 60 s, 58 s kept for the analysis\\)")))
        << result.log;
    EXPECT_TRUE(contains(result.log, "run ended with exit code 124")) << result.log;
    EXPECT_TRUE(contains(result.log, "the run step reached its limit of " + limit[1].str() + " s and was stopped"))
        << result.log;
    EXPECT_EQ(note("analyzed"), (runs() / "quick-job7").string() + "\n");
}

// Confirm before drain: the first analysis names figure FAILs measured once; their tests run
// again on those nodes only (srun --nodelist, this job's ranks per node), with the run's options
// but without its own test selection, and the final analysis judges both: its exit code is the job's.
TEST_F(JobScriptRun, FigureFailsAreMeasuredAgainOnTheirNodesBeforeTheFinalAnalysis) {
    auto given = options();
    given.ranks_per_node = 2;
    given.run_args = {"--tests", "stream,allpairs", "--config", "/abs/site.yaml"};
    render(given);
    const auto result = run("7", {"ANALYZE_EXIT=1", "FINAL_EXIT=0", "CONFIRM_TESTS=allpairs,dgemm_fp64",
                                  "CONFIRM_NODES=node1,node3"});
    EXPECT_EQ(result.exit_code, 0) << result.log;
    EXPECT_TRUE(contains(result.log, "shakedown: confirming before drain: tests allpairs,dgemm_fp64 again on 2 node(s) "
                                     "(node1,node3), run folder " + (runs() / "quick-job7-confirm").string()))
        << result.log;
    EXPECT_TRUE(contains(note("srun-arguments"),
                         "--nodelist=node1,node3 --nodes=2 --ntasks=4 --ntasks-per-node=2 " + (folder_ / "shakedown").string()))
        << note("srun-arguments");
    EXPECT_EQ(note("run-tests"), "quick-job7: stream,allpairs\nquick-job7-confirm: allpairs,dgemm_fp64\n");
    EXPECT_TRUE(contains(note("srun-arguments"), "--config /abs/site.yaml --tests allpairs,dgemm_fp64")) << note("srun-arguments");
    const std::string first = (runs() / "quick-job7").string();
    EXPECT_EQ(note("analyzed"), first + "\n" + first + "\n");
    EXPECT_TRUE(contains(note("analyzer-arguments"), first + " --confirmation " + (runs() / "quick-job7-confirm").string()))
        << note("analyzer-arguments");
    EXPECT_TRUE(contains(result.log, "final analyzer exit code 0, with confirmation run")) << result.log;
}

TEST_F(JobScriptRun, NothingToConfirmIsOneAnalysis) {
    for (const std::string exit_code : {"0", "1"}) {
        std::filesystem::remove_all(runs());
        std::filesystem::remove(folder_ / "analyzed");
        const auto result = run("7", {"ANALYZE_EXIT=" + exit_code, "CONFIRM_TESTS=", "CONFIRM_NODES="});
        EXPECT_EQ(result.exit_code, std::stoi(exit_code)) << result.log;
        EXPECT_EQ(note("analyzed"), (runs() / "quick-job7").string() + "\n");
        EXPECT_FALSE(contains(result.log, "confirming")) << result.log;
    }
}

// Slurm's SIGTERM (scancel, the time limit) reaches the script while the step runs: it says so
// and still analyses what was written.
TEST_F(JobScriptRun, SigtermFromSlurmStillAnalyses) {
    const auto result = run("7", {"RUN_SLEEP=3", "ANALYZE_EXIT=3"},
                            "\"$@\" & job=$!; sleep 1; kill -TERM $job; wait $job");
    EXPECT_EQ(result.exit_code, 3) << result.log;
    EXPECT_TRUE(contains(result.log, "the job got SIGTERM from Slurm")) << result.log;
    EXPECT_EQ(note("analyzed"), (runs() / "quick-job7").string() + "\n");
}

// Slurm's warning signal (#SBATCH --signal=B:USR1@S) reaches the script while the step runs: the
// trap stops the step at once (not when it would have ended), the analysis judges what ran, and
// no confirmation step starts in the little time left.
TEST_F(JobScriptRun, SlurmsWarningSignalStopsTheStepAndAnalysesWhatRan) {
    const auto result = run("7", {"RUN_SLEEP=30", "ANALYZE_EXIT=3", "CONFIRM_TESTS=allpairs", "CONFIRM_NODES=node2"},
                            "\"$@\" & job=$!; sleep 1; kill -USR1 $job; wait $job");
    EXPECT_EQ(result.exit_code, 3) << result.log;
    EXPECT_LT(result.seconds, 10) << result.log;
    EXPECT_TRUE(contains(result.log, "Slurm signalled USR1: the time limit is 90 s away or less")) << result.log;
    EXPECT_TRUE(contains(result.log, "the run step was stopped by Slurm's signal")) << result.log;
    EXPECT_TRUE(contains(result.log, "no confirmation (tests allpairs on node2)")) << result.log;
    EXPECT_EQ(note("analyzed"), (runs() / "quick-job7").string() + "\n");
    EXPECT_EQ(note("run-names"), "quick-job7\n");
}

// Without a signal the same job runs its step to the end and confirms: the trap changes nothing.
TEST_F(JobScriptRun, NoSignalNoStop) {
    const auto result = run("7", {"RUN_SLEEP=1", "ANALYZE_EXIT=1", "FINAL_EXIT=1", "CONFIRM_TESTS=allpairs",
                                  "CONFIRM_NODES=node2"});
    EXPECT_EQ(result.exit_code, 1) << result.log;
    EXPECT_GE(result.seconds, 1) << result.log;
    EXPECT_FALSE(contains(result.log, "signalled")) << result.log;
    EXPECT_TRUE(contains(result.log, "run ended with exit code 0")) << result.log;
    EXPECT_EQ(note("run-names"), "quick-job7\nquick-job7-confirm\n");
}

// The signal during the confirmation step stops that step too; the final analysis still runs.
TEST_F(JobScriptRun, SignalDuringTheConfirmationStopsItAndTheFinalAnalysisRuns) {
    const auto result = run("7", {"ANALYZE_EXIT=1", "FINAL_EXIT=1", "CONFIRM_TESTS=allpairs", "CONFIRM_NODES=node2",
                                  "CONFIRM_SLEEP=30"},
                            "\"$@\" & job=$!; sleep 2; kill -USR1 $job; wait $job");
    EXPECT_EQ(result.exit_code, 1) << result.log;
    EXPECT_LT(result.seconds, 12) << result.log;
    EXPECT_TRUE(contains(result.log, "confirmation step ended with exit code 143")) << result.log;
    EXPECT_TRUE(contains(result.log, "final analyzer exit code 1")) << result.log;
}

}  // namespace
}  // namespace shakedown::slurm
