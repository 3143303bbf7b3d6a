#include "analysis/load/rank_codec.hpp"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace shakedown::analysis {
namespace {

using nlohmann::json;

// Records are positional arrays, not objects: a rank holds ~45 metrics, and keys repeated in
// every one of them would be most of the bytes and of the encoding time. The positions are
// the order of the members in the structs (trace/trace_format.hpp, core/result.hpp).

template <typename Enum>
int number_of(Enum value) {
    return static_cast<int>(value);
}

template <typename Enum>
Enum enum_of(const json& value) {
    return static_cast<Enum>(value.get<int>());
}

json optional_value(const auto& value) { return value ? json(*value) : json(nullptr); }

json encode_table(const SampleTable& table) {
    json columns = json::array();
    for (const SampleTable::Column& column : table.columns()) columns.push_back(json::array({column.name, column.unit}));
    return json::array({std::move(columns), table.rows()});
}

SampleTable decode_table(const json& encoded) {
    std::vector<SampleTable::Column> columns;
    for (const json& column : encoded.at(0)) columns.push_back({column.at(0).get<std::string>(), column.at(1).get<std::string>()});
    if (columns.empty()) return {};  // a default table: a test that recorded no samples
    SampleTable table(std::move(columns));
    for (const json& row : encoded.at(1)) table.add_row(row.get<std::vector<double>>());
    return table;
}

json encode_test(const TestResult& test) {
    json metrics = json::array();
    for (const Metric& metric : test.metrics)
        metrics.push_back(json::array(
            {metric.name, metric.unit, metric.value, optional_value(metric.nominal), number_of(metric.better)}));
    return json::array({test.key, number_of(test.status), test.reason, test.start_utc, test.end_utc, test.parameters,
                        std::move(metrics), encode_table(test.samples), test.bad_input,
                        test.cause ? json(number_of(*test.cause)) : json(nullptr)});
}

TestResult decode_test(const json& encoded) {
    TestResult test;
    test.key = encoded.at(0).get<std::string>();
    test.status = enum_of<Status>(encoded.at(1));
    test.reason = encoded.at(2).get<std::string>();
    test.start_utc = encoded.at(3).get<double>();
    test.end_utc = encoded.at(4).get<double>();
    test.parameters = encoded.at(5).get<std::map<std::string, std::string>>();
    const json& metrics = encoded.at(6);
    test.metrics.reserve(metrics.size());
    for (const json& row : metrics) {
        Metric metric;
        metric.name = row.at(0).get<std::string>();
        metric.unit = row.at(1).get<std::string>();
        metric.value = row.at(2).get<double>();
        if (!row.at(3).is_null()) metric.nominal = row.at(3).get<double>();
        metric.better = enum_of<Better>(row.at(4));
        test.metrics.push_back(std::move(metric));
    }
    test.samples = decode_table(encoded.at(7));
    test.bad_input = encoded.at(8).get<bool>();
    if (!encoded.at(9).is_null()) test.cause = enum_of<Cause>(encoded.at(9));
    return test;
}

json encode_header(const TraceHeader& header) {
    const RankBinding& binding = header.binding;
    return json::array({header.schema_version, header.shakedown_version, header.run_id, header.run_uuid, header.rank,
                        header.world_size, header.node, header.local_rank, header.start_utc,
                        json::array({binding.cpu_affinity, optional_value(binding.cuda_visible_devices),
                                     binding.gpu_ordinal, binding.slurm})});
}

TraceHeader decode_header(const json& encoded) {
    TraceHeader header;
    header.schema_version = encoded.at(0).get<std::string>();
    header.shakedown_version = encoded.at(1).get<std::string>();
    header.run_id = encoded.at(2).get<std::string>();
    header.run_uuid = encoded.at(3).get<std::string>();
    header.rank = encoded.at(4).get<int>();
    header.world_size = encoded.at(5).get<int>();
    header.node = encoded.at(6).get<std::string>();
    header.local_rank = encoded.at(7).get<int>();
    header.start_utc = encoded.at(8).get<double>();
    const json& binding = encoded.at(9);
    header.binding.cpu_affinity = binding.at(0).get<std::string>();
    if (!binding.at(1).is_null()) header.binding.cuda_visible_devices = binding.at(1).get<std::string>();
    header.binding.gpu_ordinal = binding.at(2).get<int>();
    header.binding.slurm = binding.at(3).get<std::map<std::string, std::string>>();
    return header;
}

json encode_trace(const Trace& trace) {
    json tests = json::array();
    for (const TestResult& test : trace.tests) tests.push_back(encode_test(test));
    json telemetry = json::object();
    for (const auto& [device, table] : trace.telemetry) telemetry[device] = encode_table(table);
    json events = json::array();
    for (const Event& event : trace.events) events.push_back(json::array({event.t, number_of(event.severity), event.text}));
    json stalled = nullptr;
    if (trace.stalled)
        stalled = json::array({trace.stalled->activity.test, trace.stalled->activity.phase,
                               trace.stalled->activity.waiting_for, trace.stalled->noticed_by, trace.stalled->late_s});
    return json::array({encode_header(trace.header), number_of(trace.status), trace.end_utc, trace.config_yaml,
                        trace.inventory, std::move(tests), std::move(telemetry), trace.telemetry_attributes,
                        std::move(events), std::move(stalled)});
}

Trace decode_trace(const json& encoded) {
    Trace trace;
    trace.header = decode_header(encoded.at(0));
    trace.status = enum_of<TraceStatus>(encoded.at(1));
    trace.end_utc = encoded.at(2).get<double>();
    trace.config_yaml = encoded.at(3).get<std::string>();
    trace.inventory = encoded.at(4);
    const json& tests = encoded.at(5);
    trace.tests.reserve(tests.size());
    for (const json& test : tests) trace.tests.push_back(decode_test(test));
    for (const auto& [device, table] : encoded.at(6).items()) trace.telemetry.emplace(device, decode_table(table));
    trace.telemetry_attributes = encoded.at(7).get<std::map<std::string, std::map<std::string, std::string>>>();
    for (const json& event : encoded.at(8))
        trace.events.push_back({event.at(0).get<double>(), enum_of<Severity>(event.at(1)), event.at(2).get<std::string>()});
    if (const json& stalled = encoded.at(9); !stalled.is_null())
        trace.stalled = StalledAt{{stalled.at(0).get<std::string>(), stalled.at(1).get<std::string>(),
                                   stalled.at(2).get<std::vector<int>>()},
                                  stalled.at(3).get<std::string>(),
                                  stalled.at(4).get<double>()};
    return trace;
}

}  // namespace

std::vector<std::uint8_t> encode_rank_read(const RankRecord& record) {
    const json encoded = json::array({record.node, record.local_rank, number_of(record.problem), record.problem_text,
                                      record.trace ? encode_trace(*record.trace) : json(nullptr), record.inventory_read});
    return json::to_msgpack(encoded);
}

void decode_rank_read(std::span<const std::uint8_t> bytes, RankRecord& record) {
    try {
        const json encoded = json::from_msgpack(bytes.begin(), bytes.end());
        record.node = encoded.at(0).get<std::string>();
        record.local_rank = encoded.at(1).get<int>();
        record.problem = enum_of<RankProblem>(encoded.at(2));
        record.problem_text = encoded.at(3).get<std::string>();
        if (const json& trace = encoded.at(4); !trace.is_null()) record.trace = decode_trace(trace);
        else record.trace.reset();
        record.inventory_read = encoded.at(5).get<bool>();
    } catch (const json::exception& error) {
        throw std::runtime_error(std::string("a reader's record is malformed: ") + error.what());
    }
}

}  // namespace shakedown::analysis
