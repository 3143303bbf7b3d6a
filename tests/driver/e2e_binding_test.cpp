// The rank's binding in its trace, from a real run: two ranks under mpirun, started with one CPU
// (taskset, mpirun --bind-to none so the ranks keep it), CUDA_VISIBLE_DEVICES and Slurm step
// variables in their environment as srun would set them (this machine has no Slurm step and no
// GPU: the variables are given, the CPU list is the kernel's own answer).
#include "e2e_support.hpp"
#include "core/rank_binding.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

TEST(RankBinding, CpuListsAsRanges) {
    EXPECT_EQ(format_cpu_list({}), "");
    EXPECT_EQ(format_cpu_list({3}), "3");
    EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
}

TEST(EndToEnd, TracesRecordEachRanksCpuGpuAndSlurmBinding) {
    const ScratchFolder scratch("binding");
    const auto config = scratch.write("small.yaml", small_params);
    auto command = mpirun(2, {"--bind-to", "none", "-x", "CUDA_VISIBLE_DEVICES=3", "-x", "SLURM_STEP_ID=7", "-x",
                              "SLURM_CPU_BIND=quiet,mask_cpu:0x2", SHAKEDOWN_DRIVER, "run", "--tests", "stream",
                              "--config", config.string(), "--out", scratch.path().string(), "--name", "b1"});
    command.insert(command.begin(), {"taskset", "-c", "1"});
    const auto run = run_process(command);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    for (int rank : {0, 1}) {
        SCOPED_TRACE(fmt::format("rank {}", rank));
        const Trace trace = read_trace(scratch.path() / "b1" / trace_relative_path(rank));
        const auto& binding = trace.header.binding;
        EXPECT_EQ(binding.cpu_affinity, "1");
        EXPECT_EQ(binding.cuda_visible_devices, std::optional<std::string>("3"));
        // No GPU runtime here: the rank uses none, whatever it was told it may see.
        EXPECT_EQ(binding.gpu_ordinal, -1);
        EXPECT_EQ(binding.slurm.at("SLURM_STEP_ID"), "7");
        EXPECT_EQ(binding.slurm.at("SLURM_CPU_BIND"), "quiet,mask_cpu:0x2");
        EXPECT_FALSE(binding.slurm.contains("SLURM_PROCID"));  // not set: not recorded
    }
}

// Unbound and without the variables: the whole machine's CPUs, nothing else recorded.
TEST(EndToEnd, AnUnboundRankWithoutSlurmRecordsAllItsCpusAndNoVariables) {
    const ScratchFolder scratch("unbound");
    const auto config = scratch.write("small.yaml", small_params);
    const auto run = run_process(mpirun(1, {"--bind-to", "none", SHAKEDOWN_DRIVER, "run",
                                            "--tests", "stream", "--config", config.string(), "--out",
                                            scratch.path().string(), "--name", "u1"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const Trace trace = read_trace(scratch.path() / "u1" / trace_relative_path(0));
    cpu_set_t set;
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    EXPECT_EQ(trace.header.binding.cpu_affinity, current_rank_binding(std::nullopt).cpu_affinity);
    EXPECT_FALSE(trace.header.binding.cpu_affinity.empty());
    for (const auto& [name, value] : trace.header.binding.slurm) ADD_FAILURE() << name << "=" << value << " recorded";
}

}  // namespace
}  // namespace shakedown::testing
