// How many warm-up and timed iterations a message size gets. OSU micro-benchmark
// conventions: small messages 10000 timed / 100 warm-up, above 8 KiB 1000 / 10; tests
// scale them down through parameters.
#pragma once

#include "core/params.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shakedown::comm {

inline constexpr std::size_t large_message_bytes = 8192;  // OSU's LARGE_MESSAGE_SIZE
inline constexpr std::int64_t most_iterations = 100'000'000;  // far beyond any useful count; keeps an int

struct IterationPlan {
    int warmup = 0;
    int iterations = 0;
};

struct IterationCounts {
    IterationPlan small{100, 10000};
    IterationPlan large{10, 1000};

    IterationPlan for_size(std::size_t bytes) const { return bytes > large_message_bytes ? large : small; }
};

// The parameter declarations shared by ping-pong style tests and reading them back.
std::vector<ParamSpec> iteration_parameters(IterationCounts defaults);
// The declared counts (iteration_parameters' ranges were checked when the config was read).
IterationCounts iteration_counts(const TestParams& params);

}  // namespace shakedown::comm
