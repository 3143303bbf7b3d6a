#include "comm/iteration_plan.hpp"

namespace shakedown::comm {

std::vector<ParamSpec> iteration_parameters(IterationCounts defaults) {
    return {
        ParamSpec::integer("iterations_small", defaults.small.iterations, "timed iterations for messages up to 8 KiB")
            .between(1, most_iterations),
        ParamSpec::integer("warmup_small", defaults.small.warmup, "untimed warm-up iterations for messages up to 8 KiB")
            .between(0, most_iterations),
        ParamSpec::integer("iterations_large", defaults.large.iterations, "timed iterations for messages above 8 KiB")
            .between(1, most_iterations),
        ParamSpec::integer("warmup_large", defaults.large.warmup, "untimed warm-up iterations for messages above 8 KiB")
            .between(0, most_iterations),
    };
}

IterationCounts iteration_counts(const TestParams& params) {
    const auto read = [&](const char* name) { return static_cast<int>(params.integer(name)); };
    IterationCounts counts;
    counts.small = {read("warmup_small"), read("iterations_small")};
    counts.large = {read("warmup_large"), read("iterations_large")};
    return counts;
}

}  // namespace shakedown::comm
