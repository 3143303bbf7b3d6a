#include "analysis/calibrate/calibrate_runs.hpp"

#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis/rules/settings/calibration.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "core/printable_text.hpp"
#include "core/registry.hpp"
#include "core/test_spec.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace shakedown::analysis {
namespace {

// The bands a site's figure is judged by, from its own runs: WARN 5 % below the healthy median
// (Azure's per-SKU gates sit about 5 % below what healthy nodes gave), FAIL 10 % below; where a
// healthy run itself went lower, the WARN edge moves 2 points under it so no healthy unit of the
// calibration would WARN.
constexpr double warn_edge = 0.95;
constexpr double fail_edge = 0.90;
constexpr double edge_margin = 0.02;
// Runs that disagree by more than this (max - min over the median) do not give one figure: the
// metric is left out and named.
constexpr double max_spread = 0.25;

// One figure's conditions: the metric, the test parameters it was measured under, and for a
// job-wide figure the ranks it was measured over.
struct FigureKey {
    std::string metric;
    std::map<std::string, std::string> when;
    std::optional<int> ranks;
    auto operator<=>(const FigureKey&) const = default;
};

struct FigureValues {
    std::string unit;
    Better better = Better::higher;
    std::optional<double> nominal;
    std::vector<double> values;
    std::set<std::size_t> runs;  // indices of the runs that measured it
};

// The declared parameters as the test recorded them: the configuration the figure holds for.
// Recorded outcomes (a checksum ratio, the n an `auto` chose) are not conditions.
std::map<std::string, std::string> declared_conditions(const TestResult& test) {
    std::map<std::string, std::string> when;
    const Test* declared = Registry::instance().find(test.key);
    if (declared == nullptr) return when;
    for (const ParamSpec& parameter : declared->spec().parameters)
        if (const auto found = test.parameters.find(parameter.name); found != test.parameters.end())
            when.emplace(found->first, found->second);
    return when;
}

std::optional<int> job_ranks(const TestResult& test, const std::string& metric, int world_size) {
    const Test* declared = Registry::instance().find(test.key);
    const MetricSpec* spec = declared != nullptr ? declared->spec().metric(metric) : nullptr;
    if (spec == nullptr || spec->scope != MetricScope::job) return std::nullopt;
    return ranks_measured(test, world_size);
}

// Judged by calibration where a part has a figure: a fraction-of-nominal band or `calibrated: true`.
bool calibratable(const MetricRule* rule) {
    return rule != nullptr && (rule->fraction_of_nominal || rule->gpu_fraction_of_nominal || rule->calibrated);
}

std::string worst_reason(const Judgement& judgement) {
    for (const NodeVerdict& node : judgement.nodes)
        if (const Finding* worst = node.worst_finding(); worst != nullptr && worst->level == Level::fail)
            return fmt::format("{}: {}", node.node, worst->reason);
    if (!judgement.incomplete.empty()) return judgement.incomplete.front();
    if (!judgement.errors.empty()) return judgement.errors.front();
    return "";
}

std::string rounded(double value) { return fmt::format("{:.4g}", value); }

class Calibration {
public:
    explicit Calibration(Thresholds thresholds) : thresholds_(std::move(thresholds)) {}

    // Judges one run and takes its figures; throws InputError when it cannot be calibrated from.
    void add_run(const std::filesystem::path& dir) {
        const LoadedRun run = load_run(dir);
        const Observations observations(run);
        RunDetails details(run);
        const AnalysisResult result = apply_rules(observations, thresholds_, nullptr, nullptr, details);
        const Verdict verdict = result.judgement.overall;
        if (verdict != Verdict::pass && verdict != Verdict::warn)
            throw InputError(fmt::format("{} is not a healthy run (verdict {}: {}): calibrate from healthy nodes only",
                                         dir.string(), to_string(verdict), worst_reason(result.judgement)));
        for (const auto& rank : observations.ranks()) {
            if (rank.gpu_name.empty())
                throw InputError(fmt::format("{}: rank {} recorded no GPU: a calibration is a GPU part's figures",
                                             dir.string(), rank.rank));
            parts_[rank.gpu_name].insert(dir.string());
        }
        if (parts_.size() > 1) {
            std::vector<std::string> named;
            for (const auto& [part, runs] : parts_) named.push_back(fmt::format("{} ({})", part, *runs.begin()));
            throw InputError(fmt::format("the runs mix parts: {}; calibrate each part from its own runs",
                                         fmt::join(named, ", ")));
        }
        const std::size_t index = run_ids_.size();
        run_ids_.push_back(run.manifest.run_id.empty() ? dir.filename().string() : run.manifest.run_id);
        const int world_size = static_cast<int>(observations.ranks().size());
        for (const MetricRow& row : observations.metrics()) {
            if (!std::isfinite(row.metric->value) || !measured_on_gpu(*row.who, *row.test)) continue;
            if (!calibratable(thresholds_.rule_for(row.metric->name))) continue;
            const FigureKey key{row.metric->name, declared_conditions(*row.test),
                                job_ranks(*row.test, row.metric->name, world_size)};
            FigureValues& figure = figures_[key];
            if (figure.values.empty()) {
                figure.unit = row.metric->unit;
                figure.better = row.metric->better;
                figure.nominal = row.metric->nominal;
            } else if (figure.nominal != row.metric->nominal) {
                throw InputError(fmt::format("{}: {} has nominal {} here and {} in an earlier run: the runs mix parts "
                                             "or nominal tables", dir.string(), key.metric,
                                             row.metric->nominal ? rounded(*row.metric->nominal) : "none",
                                             figure.nominal ? rounded(*figure.nominal) : "none"));
            }
            // A job-wide figure is the same on every rank: once per run.
            if (key.ranks && figure.runs.count(index) > 0) continue;
            figure.values.push_back(row.metric->value);
            figure.runs.insert(index);
        }
    }

    // The calibration file's text; `skipped` gets one line per figure left out.
    std::string yaml(int min_runs, std::vector<std::string>& skipped, int& entries) const {
        const std::string part = parts_.begin()->first;
        YAML::Emitter emitter;
        emitter << YAML::Comment(fmt::format(
            "Calibrated figures of {} from {} healthy reference runs ({}), written by shakedown-analyze calibrate.\n"
            "Give it to the analyzer as --calibrated FILE (or `calibrated: FILE` in a thresholds file): these\n"
            "entries are judged before the built-in ones. Each holds for its test parameters (when) only.",
            part, run_ids_.size(), fmt::join(run_ids_, ", ")));
        emitter << YAML::BeginMap;
        emitter << YAML::Key << "bands" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "warn_below"
                << YAML::Value << rounded(warn_edge) << YAML::Key << "fail_below" << YAML::Value << rounded(fail_edge)
                << YAML::EndMap;
        emitter << YAML::Key << "references" << YAML::Value << YAML::BeginSeq;
        entries = 0;
        for (const auto& [key, figure] : figures_) {
            if (static_cast<int>(figure.runs.size()) < min_runs) {
                skipped.push_back(fmt::format("{}: measured in {} of the runs, {} needed", key.metric, figure.runs.size(),
                                              min_runs));
                continue;
            }
            const double healthy = stats::median(figure.values);
            const auto [low, high] = std::minmax_element(figure.values.begin(), figure.values.end());
            if (!(healthy > 0.0)) {
                skipped.push_back(fmt::format("{}: healthy median {} is not a rate", key.metric, healthy));
                continue;
            }
            const double spread = (*high - *low) / healthy;
            if (spread > max_spread) {
                skipped.push_back(fmt::format("{}: the runs disagree by {:.0f} % ({}-{} {}): not one figure", key.metric,
                                              100.0 * spread, rounded(*low), rounded(*high), figure.unit));
                continue;
            }
            // How far below the healthy figure a healthy unit of these runs went.
            const double worst_ratio = figure.better == Better::higher ? *low / healthy : healthy / *high;
            const double warn_below = std::min(warn_edge, std::floor((worst_ratio - edge_margin) * 100.0) / 100.0);
            const double fail_below = std::min(fail_edge, warn_below - 0.05);
            emitter << YAML::BeginMap;
            emitter << YAML::Key << "part" << YAML::Value << part;
            emitter << YAML::Key << "metric" << YAML::Value << key.metric;
            if (!key.when.empty()) {
                emitter << YAML::Key << "when" << YAML::Value << YAML::Flow << YAML::BeginMap;
                for (const auto& [name, value] : key.when)
                    emitter << YAML::Key << name << YAML::Value << YAML::DoubleQuoted << value;
                emitter << YAML::EndMap;
            }
            if (key.ranks) emitter << YAML::Key << "ranks" << YAML::Value << *key.ranks;
            std::string measured;
            if (figure.nominal && *figure.nominal > 0.0) {
                emitter << YAML::Key << "healthy_fraction" << YAML::Value << rounded(healthy / *figure.nominal);
                measured = fmt::format("{}-{} {} of nominal {}, median {}", rounded(*low), rounded(*high), figure.unit,
                                       rounded(*figure.nominal), rounded(healthy));
            } else {
                emitter << YAML::Key << "healthy_value" << YAML::Value << rounded(healthy);
                measured = fmt::format("{}-{} {}, median {}", rounded(*low), rounded(*high), figure.unit, rounded(healthy));
            }
            emitter << YAML::Key << "warn_below" << YAML::Value << rounded(warn_below);
            emitter << YAML::Key << "fail_below" << YAML::Value << rounded(fail_below);
            emitter << YAML::Key << "measured" << YAML::Value
                    << fmt::format("{} ({} values, {} runs, spread {:.1f} %)", measured, figure.values.size(),
                                   figure.runs.size(), 100.0 * spread);
            emitter << YAML::Key << "conditions" << YAML::Value
                    << "the test parameters in `when`; the runs' clocks, power limits and software as they were";
            std::vector<std::string> sources;
            for (const std::size_t run : figure.runs) sources.push_back(run_ids_[run]);
            emitter << YAML::Key << "source" << YAML::Value
                    << fmt::format("shakedown-analyze calibrate: {}", fmt::join(sources, ", "));
            emitter << YAML::EndMap;
            ++entries;
        }
        emitter << YAML::EndSeq << YAML::EndMap;
        return std::string(emitter.c_str()) + "\n";
    }

    const std::string& part() const { return parts_.begin()->first; }

private:
    Thresholds thresholds_;
    std::map<std::string, std::set<std::string>> parts_;  // GPU name -> the runs it came from
    std::vector<std::string> run_ids_;
    std::map<FigureKey, FigureValues> figures_;
};

}  // namespace

int calibrate(const CalibrateOptions& options, std::ostream& out, std::ostream& err) {
    try {
        if (options.min_runs < 2)
            throw InputError(fmt::format("--min-runs must be 2 or more (one run has no spread), got {}", options.min_runs));
        if (static_cast<int>(options.runs.size()) < options.min_runs)
            throw InputError(fmt::format("{} run(s) given: a calibration needs at least {} healthy runs of the part "
                                         "(--min-runs)", options.runs.size(), options.min_runs));
        if (std::filesystem::exists(std::filesystem::symlink_status(options.output)))
            throw InputError(fmt::format("{} exists: calibrate never overwrites a file; give another --output",
                                         options.output.string()));
        check_output_target(options.output);
        Thresholds thresholds = Thresholds::built_in();
        if (options.thresholds_file) thresholds = thresholds.overridden_by(Thresholds::from_file(*options.thresholds_file));
        Calibration calibration(std::move(thresholds));
        for (const std::filesystem::path& run : options.runs) calibration.add_run(run);
        std::vector<std::string> skipped;
        int entries = 0;
        const std::string text = calibration.yaml(options.min_runs, skipped, entries);
        if (entries == 0)
            throw InputError(fmt::format("no figure of {} was measured in {} of the runs: nothing to calibrate{}{}",
                                         calibration.part(), options.min_runs, skipped.empty() ? "" : " (",
                                         skipped.empty() ? "" : fmt::format("{})", fmt::join(skipped, "; "))));
        CalibratedReferences::parse(text, options.output.string());  // what the analyzer will read
        write_file_atomically(options.output, text);
        out << fmt::format("calibrate: {} figure(s) of {} from {} runs -> {}\n", entries,
                           escape_control(calibration.part()), options.runs.size(), options.output.string());
        for (const std::string& line : skipped) out << "calibrate: left out " << escape_control(line) << '\n';
        return exit_code::ok;
    } catch (const InputError& error) {
        err << "shakedown-analyze: calibrate: " << escape_control(error.what()) << '\n';
        return exit_code::bad_input;
    }
}

}  // namespace shakedown::analysis
