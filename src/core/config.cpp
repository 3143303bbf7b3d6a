#include "core/config.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/nearest_names.hpp"
#include "core/printable_text.hpp"
#include "core/registry.hpp"
#include "core/yaml_document.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace shakedown {
namespace {

// Every error names where it came from: "config.yaml:12: 'rate_hz' must be a number".
class YamlReader {
public:
    explicit YamlReader(std::string origin) : origin_(std::move(origin)) {}

    [[noreturn]] void error(const YAML::Node& node, const std::string& what) const {
        throw InputError(fmt::format("{}: {}", where(node), what));
    }

    // "config.yaml:12", or the file alone where the node has no position.
    std::string where(const YAML::Node& node) const {
        const auto mark = node.Mark();
        return mark.line >= 0 ? fmt::format("{}:{}", origin_, mark.line + 1) : origin_;
    }

    void expect_map(const YAML::Node& node, const std::string& what, const std::set<std::string>& allowed) const {
        if (!node.IsMap()) error(node, fmt::format("'{}' must be a mapping", what));
        for (const auto& item : node) {
            const std::string key = key_name(item.first, what);
            if (!allowed.contains(key))
                error(item.first, fmt::format("unknown key '{}' in {} (allowed: {})", key, what, fmt::join(allowed, ", ")));
        }
    }

    // A YAML key may itself be a mapping or a list (`? [a]: b`): not a name, so not a key here.
    std::string key_name(const YAML::Node& key, const std::string& where) const {
        if (!key.IsScalar()) error(key, fmt::format("a key in {} must be a name, not a mapping or a list", where));
        return key.Scalar();
    }

    template <typename T>
    T scalar(const YAML::Node& node, const std::string& what, const char* kind) const {
        if (!node.IsScalar()) error(node, fmt::format("'{}' must be {}", what, kind));
        try {
            return node.as<T>();
        } catch (const YAML::Exception&) {
            error(node, fmt::format("'{}' must be {}, not '{}'", what, kind, node.Scalar()));
        }
    }

    double number(const YAML::Node& node, const std::string& what) const {
        const double value = scalar<double>(node, what, "a number");
        if (!std::isfinite(value)) error(node, fmt::format("'{}' must be a finite number", what));
        return value;
    }
    std::string text(const YAML::Node& node, const std::string& what) const {
        return scalar<std::string>(node, what, "text");
    }
    bool boolean(const YAML::Node& node, const std::string& what) const {
        return scalar<bool>(node, what, "true or false");
    }
    std::vector<std::string> text_list(const YAML::Node& node, const std::string& what) const {
        if (node.IsScalar()) return {text(node, what)};
        if (!node.IsSequence()) error(node, fmt::format("'{}' must be a list of names", what));
        std::vector<std::string> out;
        for (const auto& item : node) out.push_back(text(item, what));
        return out;
    }

private:
    std::string origin_;
};

// One scalar, or a list of them: a YAML sequence, or (for configs written as text) one scalar
// with the elements between commas.
std::vector<std::string> scalar_list(const YamlReader& reader, const YAML::Node& node, const std::string& where) {
    std::vector<std::string> items;
    if (node.IsSequence()) {
        for (const auto& item : node) items.push_back(reader.text(item, where));
        return items;
    }
    const std::string text = reader.text(node, where);
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, comma - start);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (!item.empty()) items.push_back(std::move(item));
        start = comma + 1;
    }
    return items;
}

std::int64_t whole_number(const YamlReader& reader, const YAML::Node& node, const std::string& where,
                          const std::string& text) {
    YAML::Node scalar(text);
    try {
        return scalar.as<std::int64_t>();
    } catch (const YAML::Exception&) {
        reader.error(node, fmt::format("'{}' must be a whole number, not '{}'", where, text));
    }
}

ParamValue read_param(const YamlReader& reader, const YAML::Node& node, const ParamSpec& spec,
                      const std::string& where) {
    if (!spec.automatic.empty() && node.IsScalar() && node.Scalar() == "auto") return automatic;
    ParamValue value;
    switch (spec.kind) {
    case ParamKind::integer: value = reader.scalar<std::int64_t>(node, where, "a whole number"); break;
    case ParamKind::real: value = reader.number(node, where); break;
    case ParamKind::text:
    case ParamKind::choice: value = reader.text(node, where); break;
    case ParamKind::flag: value = reader.boolean(node, where); break;
    case ParamKind::integers: {
        std::vector<std::int64_t> numbers;
        for (const std::string& item : scalar_list(reader, node, where)) numbers.push_back(whole_number(reader, node, where, item));
        value = std::move(numbers);
        break;
    }
    case ParamKind::names: value = scalar_list(reader, node, where); break;
    }
    if (const auto problem = spec.violation(value)) reader.error(node, fmt::format("'{}' {}", where, *problem));
    return value;
}

// The configuration's own numbers, declared as a test's parameters are: kind, default and range in
// one place, checked by ParamSpec::violation, so the message names the limit.
namespace setting {
using input_limits::max_deadline_s;
const ParamSpec& rate_hz() {
    static const ParamSpec spec = ParamSpec::real("telemetry.rate_hz", 10.0, "telemetry samples per second")
                                      .above(0)
                                      .at_most(input_limits::max_telemetry_rate_hz);
    return spec;
}
const ParamSpec& deadline_s() {
    static const ParamSpec spec =
        ParamSpec::real("watchdog.deadline_s", 600.0, "seconds a test may take").above(0).at_most(max_deadline_s);
    return spec;
}
const ParamSpec& grace_s() {
    static const ParamSpec spec =
        ParamSpec::real("watchdog.grace_s", 10.0, "seconds the watchdog waits after a deadline").above(0).at_most(max_deadline_s);
    return spec;
}
const ParamSpec& freeze_report_s() {
    static const ParamSpec spec = ParamSpec::real("watchdog.freeze_report_s", 3.0,
                                                  "seconds a rank's process may stand still inside a test before the "
                                                  "test's result records it")
                                      .above(0.5)
                                      .at_most(max_deadline_s);
    return spec;
}
const ParamSpec& still_running_interval_s() {
    static const ParamSpec spec = ParamSpec::real("progress.still_running_interval_s", 60.0,
                                                  "seconds between two 'still running' lines in line mode")
                                      .above(0)
                                      .at_most(max_deadline_s);
    return spec;
}
const ParamSpec& fault_rank() {
    static const ParamSpec spec =
        ParamSpec::integer("faults.rank", std::int64_t{0}, "the rank a fault is planted on")
            .between(0, input_limits::max_world_size - 1);
    return spec;
}
const ParamSpec& fault_seconds() {
    static const ParamSpec spec =
        ParamSpec::real("faults.seconds", 0.0, "a delay fault's seconds per operation").between(0, max_deadline_s);
    return spec;
}
}  // namespace setting

double real_setting(const YamlReader& reader, const YAML::Node& node, const ParamSpec& spec, const std::string& where) {
    return std::get<double>(read_param(reader, node, spec, where));
}

FaultKind read_fault_kind(const YamlReader& reader, const YAML::Node& node) {
    const auto name = reader.text(node, "faults.kind");
    if (name == "abort") return FaultKind::abort;
    if (name == "hang") return FaultKind::hang;
    if (name == "corrupt") return FaultKind::corrupt;
    if (name == "delay") return FaultKind::delay;
    if (name == "stop") return FaultKind::stop;
    reader.error(node, fmt::format("unknown fault kind '{}' (known: abort, hang, stop, corrupt, delay)", name));
}

void require_known_test(const YamlReader& reader, const YAML::Node& node, const std::string& key,
                        const Registry& registry, const std::string& where) {
    if (registry.find(key) == nullptr) {
        std::vector<std::string> known;
        for (const auto& test : registry.tests()) known.emplace_back(test->key());
        reader.error(node, fmt::format("unknown test '{}' in {}{} (known: {})", key, where, did_you_mean(key, known),
                                       fmt::join(known, ", ")));
    }
}

void apply_yaml(Config& config, const YAML::Node& root, const YamlReader& reader, const Registry& registry) {
    if (!root || root.IsNull()) return;
    reader.expect_map(root, "the configuration",
                      {"suite", "tests", "exclude", "tag", "out", "name", "telemetry", "watchdog", "progress", "params", "faults"});
    if (root["suite"]) config.suite = reader.text(root["suite"], "suite");
    if (root["tests"]) config.tests = reader.text_list(root["tests"], "tests");
    if (root["exclude"]) config.exclude = reader.text_list(root["exclude"], "exclude");
    if (root["tag"]) config.tag = reader.text(root["tag"], "tag");
    if (root["out"]) config.out_parent = reader.text(root["out"], "out");
    if (root["name"]) config.run_name = reader.text(root["name"], "name");

    if (const auto telemetry = root["telemetry"]) {
        reader.expect_map(telemetry, "telemetry", {"enabled", "rate_hz", "infiniband_sysfs_root", "passive_health"});
        if (telemetry["enabled"]) config.telemetry_enabled = reader.boolean(telemetry["enabled"], "telemetry.enabled");
        if (telemetry["passive_health"])
            config.passive_health = reader.boolean(telemetry["passive_health"], "telemetry.passive_health");
        if (telemetry["rate_hz"]) config.telemetry_rate_hz = real_setting(reader, telemetry["rate_hz"], setting::rate_hz(), "telemetry.rate_hz");
        if (const auto root = telemetry["infiniband_sysfs_root"]) {
            config.infiniband_sysfs_root = reader.text(root, "telemetry.infiniband_sysfs_root");
            if (config.infiniband_sysfs_root.empty())
                reader.error(root, "'telemetry.infiniband_sysfs_root' must name a folder");
        }
    }
    if (const auto watchdog = root["watchdog"]) {
        reader.expect_map(watchdog, "watchdog", {"deadline_s", "grace_s", "freeze_report_s", "deadlines"});
        if (watchdog["freeze_report_s"])
            config.freeze_report_s =
                real_setting(reader, watchdog["freeze_report_s"], setting::freeze_report_s(), "watchdog.freeze_report_s");
        if (watchdog["deadline_s"]) config.deadline_s = real_setting(reader, watchdog["deadline_s"], setting::deadline_s(), "watchdog.deadline_s");
        if (watchdog["grace_s"]) config.watchdog_grace_s = real_setting(reader, watchdog["grace_s"], setting::grace_s(), "watchdog.grace_s");
        if (const auto deadlines = watchdog["deadlines"]) {
            if (!deadlines.IsMap()) reader.error(deadlines, "'watchdog.deadlines' must map test names to seconds");
            for (const auto& item : deadlines) {
                const std::string key = reader.key_name(item.first, "watchdog.deadlines");
                require_known_test(reader, item.first, key, registry, "watchdog.deadlines");
                config.deadlines[key] = real_setting(reader, item.second, setting::deadline_s(), "watchdog.deadlines." + key);
            }
        }
    }
    if (const auto progress = root["progress"]) {
        reader.expect_map(progress, "progress", {"still_running_interval_s"});
        if (const auto interval = progress["still_running_interval_s"])
            config.still_running_interval_s = real_setting(reader, interval, setting::still_running_interval_s(),
                                                           "progress.still_running_interval_s");
    }
    if (const auto params = root["params"]) {
        if (!params.IsMap()) reader.error(params, "'params' must map test names to their parameters");
        for (const auto& item : params) {
            const std::string key = reader.key_name(item.first, "params");
            require_known_test(reader, item.first, key, registry, "params");
            const auto specs = registry.find(key)->parameters();
            std::set<std::string> allowed;
            for (const auto& spec : specs) allowed.insert(spec.name);
            if (item.second.IsNull()) continue;
            reader.expect_map(item.second, "params." + key, allowed);
            for (const auto& spec : specs)
                if (const auto value = item.second[spec.name])
                    config.params[key][spec.name] = read_param(reader, value, spec, "params." + key + "." + spec.name);
        }
    }
    if (const auto faults = root["faults"]) {
        if (!faults.IsSequence()) reader.error(faults, "'faults' must be a list");
        for (const auto& item : faults) {
            reader.expect_map(item, "a fault", {"kind", "test", "rank", "seconds"});
            if (!item["kind"] || !item["test"]) reader.error(item, "a fault needs 'kind' and 'test'");
            FaultSpec fault;
            fault.kind = read_fault_kind(reader, item["kind"]);
            fault.test = reader.text(item["test"], "faults.test");
            require_known_test(reader, item["test"], fault.test, registry, "faults");
            if (item["rank"])
                fault.rank = static_cast<int>(
                    std::get<std::int64_t>(read_param(reader, item["rank"], setting::fault_rank(), "faults.rank")));
            if (item["seconds"])
                fault.seconds = real_setting(reader, item["seconds"], setting::fault_seconds(), "faults.seconds");
            if (fault.kind == FaultKind::delay && !(fault.seconds > 0.0))
                reader.error(item, fmt::format("fault delay on {} cannot be planted: it needs 'seconds' above 0 (the "
                                               "delay per operation)", fault.test));
            fault.origin = reader.where(item);
            config.faults.push_back(fault);
        }
    }
}

void apply_cli(Config& config, const CliOverrides& cli) {
    if (cli.suite) config.suite = *cli.suite;
    if (!cli.tests.empty()) config.tests = cli.tests;
    if (!cli.exclude.empty()) config.exclude = cli.exclude;
    if (cli.tag) config.tag = *cli.tag;
    if (cli.out_parent) config.out_parent = *cli.out_parent;
    if (cli.run_name) config.run_name = *cli.run_name;
    if (cli.telemetry_enabled) config.telemetry_enabled = *cli.telemetry_enabled;
    if (cli.progress) config.progress = *cli.progress;
    config.command_line = cli.command_line;
}

// The first control character (a newline, a tab, an escape code, DEL) of `text`, if any.
// A name that becomes (part of) a folder name: printable UTF-8 only (a control character would
// reach folder names, run.json and every terminal that lists them; a byte that is not UTF-8 makes
// run.json's text invalid), no '/', and short enough for a file name. The value itself is not
// repeated when it holds such a byte.
void check_folder_word(const std::string& what, const std::string& value, std::size_t max_bytes) {
    if (const auto at = first_unprintable(value)) {
        const Utf8Sequence sequence = utf8_sequence_at(value, *at);
        const char* kind = sequence.length == 0                  ? "is not UTF-8"
                           : is_bidi_control(sequence.code_point) ? "starts a bidirectional formatting character"
                                                                  : "is a control character";
        throw InputError(fmt::format("{} must be printable text: byte 0x{:02x} at position {} {}", what,
                                     static_cast<unsigned char>(value[*at]), *at + 1, kind));
    }
    if (value.size() > max_bytes)
        throw InputError(fmt::format("{} is {} bytes long; at most {}", what, value.size(), max_bytes));
}

// `narrowed`: the command line chose the tests (--tests, --exclude).
void validate(Config& config, const Registry& registry, bool narrowed) {
    // Throws InputError for unknown test or suite names.
    const std::vector<const Test*> selected = registry.select(config.suite, config.tests, config.exclude);
    // Patterns become the keys they match, so the trace, run.json and a confirmation step that
    // reuses this configuration name tests, never a pattern that could match others later.
    config.tests = registry.expand(config.tests, "");
    config.exclude = registry.expand(config.exclude, "--exclude");
    if (config.run_name) {
        const auto& name = *config.run_name;
        check_folder_word("the run name", name, input_limits::max_file_name_bytes);
        if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
            throw InputError(fmt::format("run name '{}' must be a plain folder name", name));
    }
    check_folder_word("the tag", config.tag, input_limits::max_tag_bytes);
    if (config.tag.find('/') != std::string::npos)
        throw InputError(fmt::format("tag '{}' must not contain '/'", config.tag));
    if (config.out_parent.empty()) throw InputError("the output folder ('out') must name a folder");
    // A fault for a test the run does not run plants nothing. Refused, unless the command line
    // narrowed the file's selection: then the file serves several selections, and the run says
    // which of its faults it does not plant.
    std::vector<std::string> keys;
    for (const Test* test : selected) keys.emplace_back(test->key());
    std::vector<FaultSpec> planted;
    for (FaultSpec& fault : config.faults) {
        if (std::find(keys.begin(), keys.end(), fault.test) != keys.end()) {
            planted.push_back(std::move(fault));
            continue;
        }
        const std::string why = fmt::format("{}: fault {} on {} cannot be planted: {} is not in this run (it runs {})",
                                            fault.origin, to_string(fault.kind), fault.test, fault.test,
                                            fmt::join(keys, ", "));
        if (!narrowed) throw InputError(why);
        config.unplanted_faults.push_back(why + "; not planted");
    }
    config.faults = std::move(planted);
}

}  // namespace

std::string_view to_string(FaultKind kind) {
    switch (kind) {
    case FaultKind::abort: return "abort";
    case FaultKind::hang: return "hang";
    case FaultKind::corrupt: return "corrupt";
    case FaultKind::delay: return "delay";
    case FaultKind::stop: return "stop";
    }
    return "unknown";
}

Config parse_config_text(const std::string& yaml_text, const std::string& origin, const CliOverrides& cli,
                         const Registry& registry) {
    Config config;
    config.source_yaml = yaml_text;
    YamlReader reader(origin);
    // One document, no key twice: yaml-cpp alone keeps the first of either without a word.
    const YAML::Node root = load_yaml_document(yaml_text, origin);
    apply_yaml(config, root, reader, registry);
    apply_cli(config, cli);
    validate(config, registry, !cli.tests.empty() || !cli.exclude.empty());
    return config;
}

Config load_config(const CliOverrides& cli, const Registry& registry) {
    if (!cli.config_file) {
        Config config;
        apply_cli(config, cli);
        validate(config, registry, !cli.tests.empty() || !cli.exclude.empty());
        return config;
    }
    const std::string text = read_input_file(*cli.config_file, input_limits::max_text_file_bytes,
                                             fmt::format("cannot read config file '{}': ", cli.config_file->string()));
    return parse_config_text(text, cli.config_file->string(), cli, registry);
}

void check_faults_for_world(const Config& config, int world_size) {
    for (const FaultSpec& fault : config.faults)
        if (fault.rank >= world_size)
            throw InputError(fmt::format("{}: fault {} on {} cannot be planted: rank {} is not in this run of {} rank(s) "
                                         "(0..{})",
                                         fault.origin, to_string(fault.kind), fault.test, fault.rank, world_size,
                                         world_size - 1));
}

TestParams Config::params_for(const Test& test) const {
    auto found = params.find(std::string(test.key()));
    return TestParams(test.parameters(), found == params.end() ? std::map<std::string, ParamValue>{} : found->second,
                      suite);
}

double Config::deadline_for(const Test& test) const {
    if (auto found = deadlines.find(std::string(test.key())); found != deadlines.end()) return found->second;
    if (deadline_s) return *deadline_s;
    return test.default_deadline_s();
}

std::string Config::resolved_yaml() const {
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "suite" << YAML::Value << suite;
    out << YAML::Key << "tests" << YAML::Value << YAML::Flow << tests;
    out << YAML::Key << "exclude" << YAML::Value << YAML::Flow << exclude;
    out << YAML::Key << "tag" << YAML::Value << tag;
    out << YAML::Key << "out" << YAML::Value << out_parent.string();
    if (run_name) out << YAML::Key << "name" << YAML::Value << *run_name;
    out << YAML::Key << "telemetry" << YAML::Value << YAML::BeginMap << YAML::Key << "enabled" << YAML::Value
        << telemetry_enabled << YAML::Key << "rate_hz" << YAML::Value << telemetry_rate_hz << YAML::Key
        << "infiniband_sysfs_root" << YAML::Value << infiniband_sysfs_root.string() << YAML::Key << "passive_health"
        << YAML::Value << passive_health << YAML::EndMap;
    out << YAML::Key << "watchdog" << YAML::Value << YAML::BeginMap;
    if (deadline_s) out << YAML::Key << "deadline_s" << YAML::Value << *deadline_s;
    out << YAML::Key << "grace_s" << YAML::Value << watchdog_grace_s;
    out << YAML::Key << "freeze_report_s" << YAML::Value << freeze_report_s;
    out << YAML::Key << "deadlines" << YAML::Value << deadlines << YAML::EndMap;
    out << YAML::Key << "progress" << YAML::Value << YAML::BeginMap << YAML::Key << "still_running_interval_s"
        << YAML::Value << still_running_interval_s << YAML::EndMap;
    out << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
    for (const auto& [key, values] : params) {
        out << YAML::Key << key << YAML::Value << YAML::BeginMap;
        for (const auto& [name, value] : values) {
            out << YAML::Key << name << YAML::Value;
            std::visit(
                [&out](const auto& v) {
                    using T = std::decay_t<decltype(v)>;
                    if constexpr (std::is_same_v<T, Automatic>) out << "auto";
                    else if constexpr (std::is_same_v<T, std::vector<std::int64_t>> || std::is_same_v<T, std::vector<std::string>>)
                        out << YAML::Flow << v;
                    else out << v;
                },
                value);
        }
        out << YAML::EndMap;
    }
    out << YAML::EndMap;
    out << YAML::Key << "faults" << YAML::Value << YAML::BeginSeq;
    for (const auto& fault : faults)
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value << std::string(to_string(fault.kind))
            << YAML::Key << "test" << YAML::Value << fault.test << YAML::Key << "rank" << YAML::Value << fault.rank
            << YAML::Key << "seconds" << YAML::Value << fault.seconds << YAML::EndMap;
    out << YAML::EndSeq;
    out << YAML::EndMap;
    return out.c_str();
}

}  // namespace shakedown
