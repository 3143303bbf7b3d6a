#include "driver/run_plan.hpp"

#include "driver/expected_duration.hpp"
#include "driver/run_folder.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>

namespace shakedown {
namespace {

std::string selection_line(const Config& config, std::size_t count) {
    const std::string what = config.tests.empty() ? fmt::format("suite {}", config.suite) : "--tests";
    const std::string minus = config.exclude.empty() ? "" : fmt::format(", minus {}", fmt::join(config.exclude, ", "));
    return fmt::format("selection: {}{}: {} test(s)", what, minus, count);
}

std::string folder_line(const Config& config) {
    if (config.run_name) {
        const auto path = config.out_parent / *config.run_name;
        std::error_code ignored;
        const std::string refused = std::filesystem::exists(path, ignored) ? " (exists already: the run would be refused)"
                                                                           : "";
        return fmt::format("run folder: {}{}", path.string(), refused);
    }
    return fmt::format("run folder: a new folder in {}, named at the start, as {} is named now", config.out_parent.string(),
                       default_run_name(config));
}

// Why a selected test would not measure wherever it runs: built without its library. Whether it
// waives for its hardware (no GPU, too few ranks) is known only on the nodes.
std::string built_note(const Registry& registry, const Test& test) {
    std::string note = registry.is_built(test) ? "" : fmt::format("  [waived: {}]", not_built_reason(test.spec()));
    if (test.spec().min_ranks > 1) note += fmt::format("  [needs at least {} ranks]", test.spec().min_ranks);
    return note;
}

}  // namespace

std::string format_run_plan(const Config& config, const Registry& registry, const std::vector<const Test*>& tests) {
    std::string out = "shakedown run --dry-run: nothing is started and nothing is written\n";
    out += selection_line(config, tests.size()) + "\n";
    out += folder_line(config) + "\n";
    double known_s = 0.0;
    double unknown_deadlines_s = 0.0;
    std::size_t unknown = 0;
    for (std::size_t index = 0; index < tests.size(); ++index) {
        const Test& test = *tests[index];
        const std::string key(test.key());
        const TestParams params = config.params_for(test);
        const ExpectedDuration expected = expected_duration(key, params);
        const double deadline_s = config.deadline_for(test);
        if (expected.seconds) {
            known_s += *expected.seconds;
        } else {
            ++unknown;
            unknown_deadlines_s += deadline_s;
        }
        const std::string length = expected.seconds ? fmt::format("expected {:g} s ({})", *expected.seconds, expected.source)
                                                    : "expected: unknown";
        out += fmt::format("{:>3}. {}  deadline {:g} s, {}{}\n", index + 1, key, deadline_s, length,
                           built_note(registry, test));
        std::vector<std::string> values;
        for (const auto& [name, value] : params.as_text()) values.push_back(fmt::format("{}={}", name, value));
        if (!values.empty()) out += fmt::format("     {}\n", fmt::join(values, " "));
    }
    for (const FaultSpec& fault : config.faults)
        out += fmt::format("planted fault: {} on {} at rank {}{} ({})\n", to_string(fault.kind), fault.test, fault.rank,
                           fault.seconds > 0.0 ? fmt::format(", {:g} s", fault.seconds) : "", fault.origin);
    for (const std::string& line : config.unplanted_faults) out += line + "\n";
    out += fmt::format("expected time: {:g} s from the {} test(s) of known length", known_s, tests.size() - unknown);
    if (unknown > 0)
        out += fmt::format("; {} test(s) of unknown length, whose deadlines allow up to {:g} s more", unknown,
                           unknown_deadlines_s);
    out += "\n";
    return out;
}

}  // namespace shakedown
