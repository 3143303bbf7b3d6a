#include "comm/iteration_plan.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace shakedown::comm {

std::vector<ParamSpec> iteration_parameters(IterationCounts defaults) {
    return {
        {"iterations_small", ParamKind::integer, std::int64_t{defaults.small.iterations},
         "timed iterations for messages up to 8 KiB"},
        {"warmup_small", ParamKind::integer, std::int64_t{defaults.small.warmup},
         "untimed warm-up iterations for messages up to 8 KiB"},
        {"iterations_large", ParamKind::integer, std::int64_t{defaults.large.iterations},
         "timed iterations for messages above 8 KiB"},
        {"warmup_large", ParamKind::integer, std::int64_t{defaults.large.warmup},
         "untimed warm-up iterations for messages above 8 KiB"},
    };
}

IterationCounts iteration_counts(const TestParams& params) {
    const auto read = [&](const char* name, std::int64_t least) {
        return static_cast<int>(params.integer_between(name, least, most_iterations));
    };
    IterationCounts counts;
    counts.small = {read("warmup_small", 0), read("iterations_small", 1)};
    counts.large = {read("warmup_large", 0), read("iterations_large", 1)};
    return counts;
}

}  // namespace shakedown::comm
