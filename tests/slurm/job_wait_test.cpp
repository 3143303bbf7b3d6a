// `submit --wait`'s wait for a job, against fake squeue/scontrol/sacct (tests/slurm/fake_slurm.hpp):
// the job's exit code when its script ran to the end, no verdict (4) and the state when Slurm
// ended the job, and an overall timeout that says what it last saw and never hangs.
#include "slurm/job_wait.hpp"

#include "fake_slurm.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace shakedown::slurm {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class JobWaitWithFakeSlurm : public ::testing::Test {
protected:
    WaitOutcome wait(double timeout_s) const {
        WaitOptions options;
        options.timeout_s = timeout_s;
        options.first_poll_s = 0.02;
        options.max_poll_s = 0.05;
        return wait_for_job("4242", fake.tools(), options);
    }
    testing::FakeSlurm fake;
};

TEST_F(JobWaitWithFakeSlurm, ScriptThatRanToItsEndGivesItsExitCode) {
    fake.set_squeue_states({"PENDING|Resources|", "RUNNING|None|node[1-3]", "FAILED|NonZeroExitCode|node[1-3]"});
    fake.set_scontrol_job("JobId=4242 JobName=shakedown-quick UserId=root(0) JobState=FAILED Reason=NonZeroExitCode "
                          "Dependency=(null) ExitCode=3:0 RunTime=00:00:42 NodeList=node[1-3] BatchHost=node1");
    const auto outcome = wait(30);
    EXPECT_EQ(outcome.end, WaitOutcome::End::exited);
    EXPECT_EQ(outcome.exit_code, 3);
    EXPECT_EQ(outcome.last_seen.source, "scontrol");
    // squeue was asked for this job in every state, as one argv (no shell).
    EXPECT_TRUE(contains(fake.squeue_calls(), "-h -t all -j 4242 -o %T|%r|%N\n")) << fake.squeue_calls();
    EXPECT_LT(outcome.waited_s, 10);
}

TEST_F(JobWaitWithFakeSlurm, CompletedMeansExitCodeZeroEvenWithoutScontrolOrSacct) {
    fake.set_squeue_states({"RUNNING|None|node[1-2]", "COMPLETED|None|node[1-2]"});
    const auto outcome = wait(30);
    EXPECT_EQ(outcome.end, WaitOutcome::End::exited);
    EXPECT_EQ(outcome.exit_code, 0);
}

TEST_F(JobWaitWithFakeSlurm, SacctSaysHowAForgottenJobEnded) {
    // Neither squeue nor scontrol knows the job any more (MinJobAge passed): accounting does.
    fake.set_sacct("FAILED|1:0|node[1-3]");
    const auto outcome = wait(30);
    EXPECT_EQ(outcome.end, WaitOutcome::End::exited);
    EXPECT_EQ(outcome.exit_code, 1);
    EXPECT_EQ(outcome.last_seen.source, "sacct");
}

TEST_F(JobWaitWithFakeSlurm, NodeFailureIsNoVerdictAndNamesTheStateAndNodes) {
    fake.set_squeue_states({"RUNNING|None|node[1-3]", "NODE_FAIL|NodeDown|node[1-3]"});
    fake.set_scontrol_job("JobId=4242 JobState=NODE_FAIL Reason=NodeDown ExitCode=0:0 NodeList=node[1-3]");
    const auto outcome = wait(30);
    EXPECT_EQ(outcome.end, WaitOutcome::End::ended_by_slurm);
    EXPECT_EQ(outcome.exit_code, no_verdict_exit_code);  // never 0: Slurm's 0:0 is not a verdict
    EXPECT_TRUE(contains(outcome.message, "job 4242 ended NODE_FAIL (reason NodeDown) on node[1-3]")) << outcome.message;
    EXPECT_TRUE(contains(outcome.message, "before its script gave a verdict")) << outcome.message;
}

TEST_F(JobWaitWithFakeSlurm, CancelledFromSacctIsNoVerdict) {
    fake.set_sacct("CANCELLED by 0|0:15|node[1-3]");
    const auto outcome = wait(30);
    EXPECT_EQ(outcome.end, WaitOutcome::End::ended_by_slurm);
    EXPECT_EQ(outcome.exit_code, no_verdict_exit_code);
    EXPECT_TRUE(contains(outcome.message, "ended CANCELLED on node[1-3] with exit code 0:15, from sacct")) << outcome.message;
}

TEST_F(JobWaitWithFakeSlurm, KeepsWaitingWhileTheJobCompletes) {
    fake.set_squeue_states({"RUNNING|None|node[1-3]", "COMPLETING|None|node[1-3]", "COMPLETING|None|node[1-3]",
                            "COMPLETED|None|node[1-3]"});
    fake.set_scontrol_job("JobId=4242 JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=node[1-3]");
    const auto outcome = wait(30);
    EXPECT_EQ(outcome.end, WaitOutcome::End::exited);
    EXPECT_EQ(outcome.exit_code, 0);
}

TEST_F(JobWaitWithFakeSlurm, TimeoutSaysWhatItLastSawAndLeavesTheJob) {
    fake.set_squeue_states({"PENDING|Resources|", "RUNNING|None|node[1-3]"});
    const auto outcome = wait(0.5);
    EXPECT_EQ(outcome.end, WaitOutcome::End::timed_out);
    EXPECT_EQ(outcome.exit_code, no_verdict_exit_code);
    EXPECT_GE(outcome.waited_s, 0.5);
    EXPECT_LT(outcome.waited_s, 5);
    EXPECT_TRUE(contains(outcome.message, "gave up waiting for job 4242 after")) << outcome.message;
    EXPECT_TRUE(contains(outcome.message, "last seen RUNNING on node[1-3], from squeue")) << outcome.message;
    EXPECT_TRUE(contains(outcome.message, "scancel 4242")) << outcome.message;
    EXPECT_EQ(outcome.message.find('\n'), std::string::npos);
}

TEST_F(JobWaitWithFakeSlurm, TimeoutWithAControllerThatStoppedAnsweringSaysBoth) {
    fake.set_squeue_states({"RUNNING|None|node[1-3]", "UNREACHABLE"});
    const auto outcome = wait(0.5);
    EXPECT_EQ(outcome.end, WaitOutcome::End::timed_out);
    EXPECT_TRUE(contains(outcome.message, "last seen RUNNING on node[1-3], from squeue")) << outcome.message;
    EXPECT_TRUE(contains(outcome.message, "Unable to contact slurm controller")) << outcome.message;
}

// squeue itself hanging (a controller that accepts but never answers) must not hang the wait:
// each command is cut off too, 5 s at the least.
TEST_F(JobWaitWithFakeSlurm, AHangingSqueueIsCutOff) {
    fake.squeue_sleeps();
    const auto started = std::chrono::steady_clock::now();
    const auto outcome = wait(0.5);
    const auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_EQ(outcome.end, WaitOutcome::End::timed_out);
    EXPECT_LT(took, 15);
    EXPECT_TRUE(contains(outcome.message, "timed out")) << outcome.message;
}

TEST_F(JobWaitWithFakeSlurm, AJobNobodyKnowsIsLost) {
    const auto outcome = wait(30);  // no squeue states, no scontrol, no sacct
    EXPECT_EQ(outcome.end, WaitOutcome::End::lost);
    EXPECT_EQ(outcome.exit_code, no_verdict_exit_code);
    EXPECT_TRUE(contains(outcome.message, "job 4242 left the queue and neither scontrol nor sacct says how it ended"))
        << outcome.message;
}

TEST(JobWait, DefaultTimeoutIsTheLimitAndFiveMinutes) {
    EXPECT_EQ(default_wait_timeout_s(15 * 60), 20 * 60);
    EXPECT_EQ(default_wait_timeout_s(8 * 60), 13 * 60);
}

TEST(JobWait, FinalStates) {
    for (const auto* state : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"})
        EXPECT_TRUE(is_final_job_state(state)) << state;
    for (const auto* state : {"PENDING", "RUNNING", "COMPLETING", "REQUEUED", "SUSPENDED", ""})
        EXPECT_FALSE(is_final_job_state(state)) << state;
}

}  // namespace
}  // namespace shakedown::slurm
