#include "analysis/report/run_configuration.hpp"

#include "analysis/report/report_header.hpp"
#include "core/yaml_document.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace shakedown::analysis {
namespace {

// The resolved configuration's fault entries (Config::resolved_yaml): {kind, test, rank, seconds}.
std::string fault_line(const YAML::Node& fault) {
    const auto field = [&fault](const char* key) {
        return fault[key] && fault[key].IsScalar() ? fault[key].Scalar() : std::string("?");
    };
    const double seconds = fault["seconds"] && fault["seconds"].IsScalar() ? fault["seconds"].as<double>(0.0) : 0.0;
    return fmt::format("{} on {} at rank {}{}", field("kind"), field("test"), field("rank"),
                       seconds > 0.0 ? fmt::format(", {:g} s", seconds) : "");
}

}  // namespace

std::optional<RunConfiguration> run_configuration(const std::optional<std::string>& resolved_yaml) {
    if (!resolved_yaml || resolved_yaml->empty()) return std::nullopt;
    RunConfiguration configuration{*resolved_yaml, sha256_hex(*resolved_yaml), {}, ""};
    try {
        const YAML::Node root = load_yaml_document(*resolved_yaml, "the run's configuration");
        if (root.IsMap() && root["faults"]) {
            if (!root["faults"].IsSequence()) throw YAML::Exception(YAML::Mark::null_mark(), "faults is not a list");
            for (const YAML::Node& fault : root["faults"])
                configuration.planted_faults.push_back(fault.IsMap() ? fault_line(fault) : "an unreadable fault entry");
        }
    } catch (const std::exception& failure) {  // the trace's text, damaged: shown, its faults unknown
        configuration.problem = fmt::format("its faults could not be read: {}", failure.what());
    }
    return configuration;
}

}  // namespace shakedown::analysis
