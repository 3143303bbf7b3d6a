#include "analysis/report/report_figures.hpp"

#include "analysis/load/run_details.hpp"
#include "analysis/rules/calibration.hpp"
#include "comm/link_matrix_columns.hpp"
#include "mpi/specs.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

// A row's size is a byte count: a whole, non-negative number. Anything else is not a sweep point
// (the synthetic run's samples are figures around a metric, not sizes).
bool is_size(double bytes) { return std::isfinite(bytes) && bytes >= 0 && std::floor(bytes) == bytes; }

// Per series (the `group` column's value, or one series without it): per size the median of
// `value` over the rows (peers, batches). Rows where `keep` says no are left out.
template <typename Keep>
std::map<double, std::map<double, std::vector<double>>> grouped(const SampleTable& samples, std::string_view group,
                                                                std::string_view value, Keep&& keep) {
    std::map<double, std::map<double, std::vector<double>>> out;  // group -> size -> values
    const auto size_column = samples.column_index("size");
    const auto value_column = samples.column_index(value);
    const auto group_column = group.empty() ? std::nullopt : samples.column_index(group);
    if (!size_column || !value_column || (!group.empty() && !group_column)) return out;
    for (const auto& row : samples.rows()) {
        const double size = row[*size_column];
        const double y = row[*value_column];
        if (!is_size(size) || size <= 0 || !std::isfinite(y) || y <= 0 || !keep(samples, row)) continue;
        out[group_column ? row[*group_column] : 0.0][size].push_back(y);
    }
    return out;
}

// The series of a grouping, named by `name_of(group)`; only series with two or more sizes.
template <typename Name>
std::vector<SweepSeries> series_of(const std::map<double, std::map<double, std::vector<double>>>& groups, Name&& name_of) {
    std::vector<SweepSeries> series;
    for (const auto& [group, by_size] : groups) {
        if (by_size.size() < 2) continue;
        SweepSeries one{name_of(group), {}};
        for (const auto& [size, values] : by_size) one.points.push_back({size, stats::median(values)});
        series.push_back(std::move(one));
    }
    return series;
}

auto every_row = [](const SampleTable&, const std::vector<double>&) { return true; };

std::string link_kind(double intra) { return intra >= 0.5 ? "intra-node" : "inter-node"; }

template <std::size_t N>
std::string name_at(const std::array<std::string_view, N>& names, double index) {
    const auto i = static_cast<std::size_t>(index);
    return index >= 0 && i < N && static_cast<double>(i) == index ? std::string(names[i]) : fmt::format("collective {}", index);
}

void add_figure(std::vector<ReportFigure>& figures, std::string id, std::string title, std::string y_label,
                std::vector<SweepSeries> series, std::vector<SweepReference> references, std::string caption) {
    if (series.empty()) return;
    SweepPlot plot{title, std::move(y_label), std::move(series), std::move(references)};
    std::string svg = svg_sweep(plot);
    if (svg.empty()) return;
    figures.push_back({std::move(id), std::move(title), std::move(svg), std::move(caption)});
}

// rank 0's value of `metric`'s nominal in `test`, if it carries one.
std::optional<double> nominal_of(const TestResult& test, const std::string& metric) {
    for (const Metric& m : test.metrics)
        if (m.name == metric && m.nominal && std::isfinite(*m.nominal) && *m.nominal > 0) return m.nominal;
    return std::nullopt;
}

// The references a test's bandwidth sweep is drawn against: the nominal figures rank 0's metrics
// carry, and for NCCL the built-in calibrated bus bandwidth at nccl-tests' reference sizes.
std::vector<SweepReference> references_for(const std::string& key, const TestResult& test, const RankIdentity& who,
                                           int world_size) {
    std::vector<SweepReference> references;
    auto nominal_line = [&](const std::string& metric, const std::string& what) {
        if (auto nominal = nominal_of(test, metric))
            references.push_back({fmt::format("nominal {} {} GB/s", what, format_number(*nominal)), *nominal, std::nullopt});
    };
    if (key == "p2p") {
        nominal_line("p2p.inter_node_bandwidth_gbs", "inter-node");
        nominal_line("p2p.intra_node_bandwidth_gbs", "intra-node");
    } else if (key == "mpi_coll") {
        nominal_line("mpi_coll.allreduce_busbw_gbs", "allreduce busbw");
    } else if (key == "nccl") {
        nominal_line("nccl.all_reduce_busbw_gbs", "all_reduce busbw");
        static const CalibratedReferences calibrated = CalibratedReferences::built_in();
        for (const auto& [suffix, bytes] : {std::pair{"8mib", 8.0 * (1 << 20)}, {"512mib", 512.0 * (1 << 20)},
                                            {"8gib", 8.0 * (1 << 30)}}) {
            const std::string metric = fmt::format("nccl.all_reduce_busbw_{}_gbs", suffix);
            const CalibratedReference* found = calibrated.find(metric, who.gpu_name, test.parameters, world_size);
            if (found != nullptr && found->healthy_value)
                references.push_back({fmt::format("calibrated all_reduce {} GB/s", format_number(*found->healthy_value)),
                                      *found->healthy_value, bytes});
        }
    }
    return references;
}

}  // namespace

std::vector<ReportFigure> sweep_figures(const std::string& test, const SampleTable& samples,
                                        const std::vector<SweepReference>& references) {
    std::vector<ReportFigure> figures;
    if (test == "p2p") {
        add_figure(figures, "sweep-p2p-bandwidth", "p2p: bandwidth vs message size (OSU style, rank 0's pairs)", "bandwidth (GB/s)",
                   series_of(grouped(samples, "intra_node", "bandwidth_gbs", every_row), link_kind), references,
                   "median over rank 0's pairs per size; dashed: nominal link bandwidth where the run carries one");
        add_figure(figures, "sweep-p2p-latency", "p2p: latency vs message size (rank 0's pairs)", "latency (us)",
                   series_of(grouped(samples, "intra_node", "latency_median_us", every_row), link_kind), {},
                   "median half round trip over rank 0's pairs per size");
    } else if (test == "mpi_pingpong") {
        add_figure(figures, "sweep-mpi-pingpong-latency", "mpi_pingpong: latency vs message size (rank 0's pairs)",
                   "latency (us)", series_of(grouped(samples, "intra_node", "latency_us", every_row), link_kind), {},
                   "median half round trip over rank 0's batches and peers per size");
    } else if (test == "mpi_coll") {
        add_figure(figures, "sweep-mpi-coll-busbw", "mpi_coll: bus bandwidth vs message size (the job's)", "busbw (GB/s)",
                   series_of(grouped(samples, "collective", "job_busbw_gbs", every_row),
                             [](double index) { return name_at(mpi::mpi_collective_names, index); }),
                   references, "job bus bandwidth (nccl-tests' factors, the slowest rank's time) per collective and size");
    } else if (test == "nccl") {
        const auto out_of_place = [](const SampleTable& table, const std::vector<double>& row) {
            const auto in_place = table.column_index("in_place");
            return !in_place || row[*in_place] < 0.5;
        };
        add_figure(figures, "sweep-nccl-busbw", "nccl: bus bandwidth vs message size (the job's, out of place)", "busbw (GB/s)",
                   series_of(grouped(samples, "collective", "job_busbw_gbs", out_of_place),
                             [](double index) { return name_at(mpi::nccl_collective_names, index); }),
                   references,
                   "job bus bandwidth per collective and size, as nccl-tests prints it; diamonds: the built-in calibrated "
                   "all_reduce references at nccl-tests' sizes for this GPU and rank count, where one exists");
    }
    return figures;
}

std::optional<ReportFigure> intra_node_matrix_figure(const SampleTable& matrix, const std::vector<std::string>& labels) {
    namespace columns = link_matrix_columns;
    const auto src = matrix.column_index(columns::src);
    const auto dst = matrix.column_index(columns::dst);
    const auto intra = matrix.column_index(columns::intra_node);
    const auto bandwidth = matrix.column_index(columns::bandwidth_gbs);
    if (!src || !dst || !intra || !bandwidth) return std::nullopt;
    std::map<std::pair<int, int>, std::vector<double>> pairs;
    std::set<int> ranks;
    for (const auto& row : matrix.rows()) {
        if (row[*intra] < 0.5 || !std::isfinite(row[*bandwidth])) continue;
        const int a = static_cast<int>(row[*src]);
        const int b = static_cast<int>(row[*dst]);
        if (a < 0 || b < 0 || a == b) continue;
        pairs[{a, b}].push_back(row[*bandwidth]);
        ranks.insert(a), ranks.insert(b);
    }
    if (pairs.empty()) return std::nullopt;
    std::map<std::pair<int, int>, double> median_of;
    std::vector<double> all;
    for (const auto& [pair, values] : pairs) all.push_back(median_of[pair] = stats::median(values));
    const double reference = stats::median(all);
    const std::vector<int> order(ranks.begin(), ranks.end());
    MatrixPlot plot;
    const std::size_t n = order.size();
    for (int rank : order)
        plot.labels.push_back(rank >= 0 && static_cast<std::size_t>(rank) < labels.size() ? labels[rank] : fmt::format("rank {}", rank));
    plot.fraction.assign(n, std::vector<std::optional<double>>(n));
    plot.text.assign(n, std::vector<std::string>(n));
    plot.tooltip.assign(n, std::vector<std::string>(n));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const auto found = median_of.find({order[i], order[j]});
            if (found == median_of.end()) continue;
            const double fraction = reference > 0 ? found->second / reference : 1.0;
            plot.fraction[i][j] = fraction;
            plot.text[i][j] = format_number(found->second);
            plot.tooltip[i][j] = fmt::format("{} -> {}: {} GB/s ({:.2f} of the median pair {} GB/s)", plot.labels[i],
                                             plot.labels[j], format_number(found->second), fraction, format_number(reference));
        }
    plot.scale_title = fmt::format("fraction of the median pair {} GB/s", format_number(reference));
    return ReportFigure{"intra-node-matrix", "Intra-node bandwidth matrix (rank x rank, GB/s)", svg_matrix(plot),
                        fmt::format("allpairs bandwidth of each ordered pair of ranks on the node (row sends to column), "
                                    "the median over its measurements; colour: fraction of the median pair ({} GB/s)",
                                    format_number(reference))};
}

std::vector<ReportFigure> report_figures(const ReportModel& model) {
    std::vector<ReportFigure> figures;
    if (model.observations == nullptr || model.run == nullptr) return figures;
    const Observations& observations = *model.observations;
    const RankIdentity* rank0 = observations.rank(0);
    if (rank0 == nullptr) return figures;
    const RunDetails details(*model.run);
    const int world_size = static_cast<int>(observations.ranks().size());
    for (const char* key : {"p2p", "mpi_pingpong", "mpi_coll", "nccl"}) {
        const TestResult* test = observations.test_of(0, key);
        if (test == nullptr || test->status == Status::waived) continue;
        const auto samples = details.rank0_samples(key);
        if (!samples) continue;
        for (ReportFigure& figure : sweep_figures(key, *samples, references_for(key, *test, *rank0, world_size)))
            figures.push_back(std::move(figure));
    }
    std::vector<ScalingPoint> scaling;
    for (const ScalingRow& row : model.workload.scaling) scaling.push_back({row.scope, row.gpus, row.measured, row.predicted});
    if (std::string svg = svg_scaling("train_step: data-parallel efficiency against GPUs", scaling); !svg.empty())
        figures.push_back({"scaling", "Scaling efficiency", std::move(svg),
                           "The median rank's step alone (T1) over the data-parallel step of one GPU, each node and the job: "
                           "measured, and predicted from the same run's T1 schedule and all-reduce bus bandwidth (Workload)."});
    if (observations.nodes().size() == 1) {
        const TestResult* allpairs = observations.test_of(0, "allpairs");
        if (allpairs != nullptr && allpairs->status != Status::waived)
            if (const auto matrix = details.rank0_samples("allpairs")) {
                std::vector<std::string> labels;
                for (const RankIdentity& who : observations.ranks())
                    labels.push_back(who.gpu ? fmt::format("rank {} / GPU {}", who.rank, *who.gpu) : fmt::format("rank {}", who.rank));
                if (auto figure = intra_node_matrix_figure(*matrix, labels)) figures.push_back(std::move(*figure));
            }
    }
    return figures;
}

}  // namespace shakedown::analysis
