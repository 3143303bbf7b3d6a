#include "analysis/report/report_figures.hpp"

#include "analysis/load/run_details.hpp"
#include "analysis/report/sweep_figure_declarations.hpp"
#include "analysis/rules/settings/calibration.hpp"
#include "comm/link_matrix_columns.hpp"
#include "mpi/allpairs/allpairs_names.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

// A row's size is a byte count: a whole, non-negative number. Anything else is not a sweep point
// (the synthetic run's samples are figures around a metric, not sizes).
bool is_size(double bytes) { return std::isfinite(bytes) && bytes >= 0 && std::floor(bytes) == bytes; }

using Groups = std::map<double, std::map<double, std::vector<double>>>;  // series -> size -> values

// Per series (the split column's value, or one series without it): per size the figure's values
// over the rows (peers, batches). Rows the declaration skips are left out.
Groups grouped(const SampleTable& samples, const SweepFigureDeclaration& figure) {
    Groups out;
    const auto size_column = samples.column_index(figure.size_column);
    const auto value_column = samples.column_index(figure.value_column);
    const bool split = figure.split != SweepSeriesSplit::none;
    const auto split_column = split ? samples.column_index(figure.split_column) : std::nullopt;
    const auto skip_column = figure.skip_column.empty() ? std::nullopt : samples.column_index(figure.skip_column);
    if (!size_column || !value_column || (split && !split_column)) return out;
    for (const auto& row : samples.rows()) {
        const double size = row[*size_column];
        const double y = row[*value_column];
        if (!is_size(size) || size <= 0 || !std::isfinite(y) || y <= 0) continue;
        if (skip_column && row[*skip_column] >= 0.5) continue;
        out[split_column ? row[*split_column] : 0.0][size].push_back(y);
    }
    return out;
}

// A series' name: "intra-node" or "inter-node", the name at its index, or none.
std::string series_name(const SweepFigureDeclaration& figure, double group) {
    switch (figure.split) {
    case SweepSeriesSplit::intra_or_inter_node: return group >= 0.5 ? "intra-node" : "inter-node";
    case SweepSeriesSplit::by_index_name: {
        const auto i = static_cast<std::size_t>(group);
        return group >= 0 && i < figure.index_names.size() && static_cast<double>(i) == group
                   ? std::string(figure.index_names[i])
                   : fmt::format("collective {}", group);
    }
    case SweepSeriesSplit::none: break;
    }
    return "";
}

// The series of a grouping; only series with two or more sizes.
std::vector<SweepSeries> series_of(const Groups& groups, const SweepFigureDeclaration& figure) {
    std::vector<SweepSeries> series;
    for (const auto& [group, by_size] : groups) {
        if (by_size.size() < 2) continue;
        SweepSeries one{series_name(figure, group), {}};
        for (const auto& [size, values] : by_size) one.points.push_back({size, stats::median(values)});
        series.push_back(std::move(one));
    }
    return series;
}

bool has_references(const SweepFigureDeclaration& figure) {
    return !figure.nominal_lines.empty() || !figure.calibrated_points.empty();
}

void add_figure(std::vector<ReportFigure>& figures, const SweepFigureDeclaration& declared, std::vector<SweepSeries> series,
                std::vector<SweepReference> references) {
    if (series.empty()) return;
    SweepPlot plot{std::string(declared.title), std::string(declared.y_label), std::move(series), std::move(references)};
    std::string svg = svg_sweep(plot);
    if (svg.empty()) return;
    figures.push_back({std::string(declared.id), std::string(declared.title), std::move(svg),
                       std::string(declared.caption)});
}

// rank 0's value of `metric`'s nominal in `test`, if it carries one.
std::optional<double> nominal_of(const TestResult& test, std::string_view metric) {
    for (const Metric& m : test.metrics)
        if (m.name == metric && m.nominal && std::isfinite(*m.nominal) && *m.nominal > 0) return m.nominal;
    return std::nullopt;
}

// The references of a test's figures that declare some: the nominal figures rank 0's metrics
// carry, and the built-in calibrated references at the sizes they were measured at.
std::vector<SweepReference> references_for(const std::string& key, const TestResult& test, const RankIdentity& who,
                                           int world_size) {
    std::vector<SweepReference> references;
    for (const SweepFigureDeclaration* figure : sweep_figure_declarations) {
        if (figure->test != key) continue;
        for (const SweepNominalLine& line : figure->nominal_lines)
            if (auto nominal = nominal_of(test, line.metric))
                references.push_back({fmt::format("nominal {} {} GB/s", line.label, format_number(*nominal)), *nominal,
                                      std::nullopt});
        if (figure->calibrated_points.empty()) continue;
        static const CalibratedReferences calibrated = CalibratedReferences::built_in();
        for (const SweepCalibratedPoint& point : figure->calibrated_points) {
            const CalibratedReference* found =
                calibrated.find(std::string(point.metric), who.gpu_name, test.parameters, world_size);
            if (found != nullptr && found->healthy_value)
                references.push_back(
                    {fmt::format("calibrated {} {} GB/s", figure->calibrated_label, format_number(*found->healthy_value)),
                     *found->healthy_value, point.bytes});
        }
    }
    return references;
}

// The tests with a declared sweep figure, each once, in the declarations' order.
std::vector<std::string> sweep_tests() {
    std::vector<std::string> keys;
    for (const SweepFigureDeclaration* figure : sweep_figure_declarations)
        if (std::find(keys.begin(), keys.end(), figure->test) == keys.end()) keys.emplace_back(figure->test);
    return keys;
}

}  // namespace

std::vector<ReportFigure> sweep_figures(const std::string& test, const SampleTable& samples,
                                        const std::vector<SweepReference>& references) {
    std::vector<ReportFigure> figures;
    for (const SweepFigureDeclaration* figure : sweep_figure_declarations)
        if (figure->test == test)
            add_figure(figures, *figure, series_of(grouped(samples, *figure), *figure),
                       has_references(*figure) ? references : std::vector<SweepReference>{});
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
    for (const std::string& key : sweep_tests()) {
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
        const TestResult* allpairs = observations.test_of(0, std::string(mpi::allpairs_names::key));
        if (allpairs != nullptr && allpairs->status != Status::waived)
            if (const auto matrix = details.rank0_samples(std::string(mpi::allpairs_names::key))) {
                std::vector<std::string> labels;
                for (const RankIdentity& who : observations.ranks())
                    labels.push_back(who.gpu ? fmt::format("rank {} / GPU {}", who.rank, *who.gpu) : fmt::format("rank {}", who.rank));
                if (auto figure = intra_node_matrix_figure(*matrix, labels)) figures.push_back(std::move(*figure));
            }
    }
    return figures;
}

}  // namespace shakedown::analysis
