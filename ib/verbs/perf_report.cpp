#include "ib/verbs/perf_report.hpp"

#include "ib/specs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

namespace shakedown::ib {

SampleTable perf_sample_table() { return SampleTable(ib_perf_spec().samples); }

void add_pair_samples(SampleTable& samples, const PairSweep& sweep) {
    for (const auto& f : sweep.outcome.figures)
        samples.add_row({static_cast<double>(f.bytes), static_cast<double>(sweep.peer_world_rank),
                         static_cast<double>(f.operation), f.latency_us.min, f.latency_us.median, f.latency_us.mean,
                         f.latency_us.p99, f.latency_us.p99_9, f.bandwidth_gbps, f.bibandwidth_gbps, f.message_rate_mps});
}

void add_perf_metrics(TestResult& result, const std::vector<PairSweep>& sweeps, std::optional<double> port_rate_gbps) {
    for (const auto operation : {Operation::write, Operation::read, Operation::send}) {
        std::vector<const SizeFigures*> mine;
        for (const auto& sweep : sweeps)
            for (const auto& f : sweep.outcome.figures)
                if (f.operation == operation) mine.push_back(&f);
        if (mine.empty()) continue;
        const auto [smallest, largest] = std::minmax_element(
            mine.begin(), mine.end(), [](const SizeFigures* a, const SizeFigures* b) { return a->bytes < b->bytes; });
        const std::size_t small = (*smallest)->bytes;
        const std::size_t large = (*largest)->bytes;
        // The worst pair at a size: the highest latency, the lowest rate.
        const auto worst = [&](std::size_t bytes, const std::function<double(const SizeFigures&)>& value,
                               bool lower_is_better) {
            std::optional<double> found;
            for (const auto* f : mine)
                if (f->bytes == bytes) {
                    const double v = value(*f);
                    if (!found || (lower_is_better ? v > *found : v < *found)) found = v;
                }
            return *found;
        };
        const auto name = [&](std::string_view quantity) {
            return fmt::format("ib_perf.{}_{}", to_string(operation), quantity);
        };
        result.add_metric(name("latency_us"), worst(
                                                  small, [](const SizeFigures& f) { return f.latency_us.median; }, true));
        result.add_metric(name("latency_p99_us"), worst(
                                                      small, [](const SizeFigures& f) { return f.latency_us.p99; }, true));
        result.add_metric(name("latency_p99_9_us"),
                          worst(
                              small, [](const SizeFigures& f) { return f.latency_us.p99_9; }, true));
        result.add_metric(name("bandwidth_gbps"),
                          worst(
                              large, [](const SizeFigures& f) { return f.bandwidth_gbps; }, false),
                          port_rate_gbps);
        result.add_metric(name("bibandwidth_gbps"),
                          worst(
                              large, [](const SizeFigures& f) { return f.bibandwidth_gbps; }, false),
                          port_rate_gbps ? std::optional(2 * *port_rate_gbps) : std::nullopt);
        result.add_metric(name("message_rate_mps"),
                          worst(
                              small, [](const SizeFigures& f) { return f.message_rate_mps; }, false));
    }
}

}  // namespace shakedown::ib
