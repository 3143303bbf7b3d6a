// What a rank was bound to when it started: the CPUs it may run on, the GPUs it sees and the one
// it uses, and Slurm's step variables that say how srun placed it. Recorded in every trace (root
// attributes, docs/trace-format.md), so a figure can be read beside the binding it was measured
// with: a STREAM rate of a rank floating over both sockets, two ranks on one GPU.
#pragma once

#include <sched.h>

#include <array>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

// Slurm's variables of the step that say where and how a task was placed (srun sets them in
// every task); those set are recorded under their own names.
inline constexpr std::array<std::string_view, 12> slurm_binding_variables = {
    "SLURM_JOB_ID",       "SLURM_STEP_ID",     "SLURM_PROCID",      "SLURM_LOCALID",
    "SLURM_NODEID",       "SLURM_CPU_BIND",    "SLURM_CPU_BIND_LIST", "SLURM_CPUS_PER_TASK",
    "SLURM_STEP_GPUS",    "SLURM_JOB_GPUS",    "SLURM_GPUS_PER_TASK", "SLURM_STEP_TASKS_PER_NODE"};

struct RankBinding {
    std::string cpu_affinity;                         // sched_getaffinity as a CPU list, "0-3,8"; "" unknown
    std::optional<std::string> cuda_visible_devices;  // none: the variable was not set
    int gpu_ordinal = -1;                             // the device the rank uses among those it sees; -1 none
    std::map<std::string, std::string> slurm;         // slurm_binding_variables that were set
};

// Ascending CPU numbers as a list of ranges: {0,1,2,3,8} -> "0-3,8".
inline std::string format_cpu_list(const std::vector<int>& cpus) {
    std::string text;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!text.empty()) text += ',';
        text += std::to_string(cpus[i]);
        if (j > i) text += '-' + std::to_string(cpus[j]);
        i = j + 1;
    }
    return text;
}

// The calling thread's binding now; gpu: the ordinal the session chose (none without GPUs).
inline RankBinding current_rank_binding(std::optional<int> gpu) {
    RankBinding binding;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        std::vector<int> cpus;
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
        binding.cpu_affinity = format_cpu_list(cpus);
    }
    if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"); visible != nullptr)
        binding.cuda_visible_devices = visible;
    binding.gpu_ordinal = gpu.value_or(-1);
    for (const auto name : slurm_binding_variables)
        if (const char* value = std::getenv(std::string(name).c_str()); value != nullptr)
            binding.slurm.emplace(name, value);
    return binding;
}

}  // namespace shakedown
