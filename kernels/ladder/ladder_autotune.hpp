// The ladder's autotune step, as plain arithmetic over timings (the CUDA side launches, this
// side decides, so the decisions are tested without a GPU).
//
// Why: on the H200 (bench/gpu/gemm_probe.cu "algos") cuBLASLt's first heuristic
// choice reached 0.976-0.985 of the fastest of its top 8 for fp16/bf16 and only 0.925 for fp64
// TN, while fp64 NN's first choice was the fastest; a rung 2 % short of its 0.97 target is then
// the library's guess, not the GPU. So each rung times its candidates (cublasGemmEx TN, then the
// heuristic's top k for TN and NN) round-robin, so that clock and power drift during the
// tuning hit every candidate alike, and measures with the fastest by median.
#pragma once

#include "stats/summary.hpp"

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace shakedown::kernels {

struct AutotuneLimits {
    int candidates = 8;       // heuristic algorithms per layout; 0 = no tuning (the first that runs)
    int rounds = 3;           // timed round-robin rounds after one warm-up launch of each
    double budget_s = 3.0;    // the rounds' estimated GPU time at most (candidates are dropped from the tail)
};

// One candidate's seconds: its warm-up launch, then one per round.
struct CandidateTimes {
    double warmup_s = 0.0;
    std::vector<double> rounds_s;
};

// How many candidates, in order (the first always), fit `rounds` repetitions each into the
// budget, estimated from their warm-up launches.
inline std::size_t candidates_within_budget(const std::vector<double>& warmup_s, int rounds, double budget_s) {
    std::size_t kept = 0;
    double spent = 0.0;
    for (const double seconds : warmup_s) {
        spent += rounds * seconds;
        if (kept > 0 && spent > budget_s) break;
        ++kept;
    }
    return kept;
}

struct AutotuneChoice {
    std::size_t best = 0;          // index of the fastest candidate (median of its rounds)
    double first_over_best = 1.0;  // rate of candidate 0 (what ran before tuning) / rate of the best
};

// The fastest candidate by the median of its rounds; ties keep the earlier one.
inline AutotuneChoice choose_fastest(const std::vector<CandidateTimes>& candidates) {
    if (candidates.empty()) throw std::invalid_argument("choose_fastest: no candidates");
    std::vector<double> medians;
    for (const CandidateTimes& candidate : candidates)
        medians.push_back(candidate.rounds_s.empty() ? std::numeric_limits<double>::infinity()
                                                     : stats::median(candidate.rounds_s));
    AutotuneChoice choice;
    for (std::size_t index = 1; index < medians.size(); ++index)
        if (medians[index] < medians[choice.best]) choice.best = index;
    if (std::isfinite(medians[0]) && medians[0] > 0.0) choice.first_over_best = medians[choice.best] / medians[0];
    return choice;
}

// Rate of the last timed repetition over the first: below 1 when the GPU slowed during the
// burst (the 700 W cap on an H200 bites after about 50 ms of fp16 or DGEMM).
inline double last_over_first(const std::vector<double>& seconds) {
    if (seconds.empty() || !(seconds.back() > 0.0)) return 0.0;
    return seconds.front() / seconds.back();
}

}  // namespace shakedown::kernels
