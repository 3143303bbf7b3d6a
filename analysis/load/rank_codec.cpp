#include "analysis/load/rank_codec.hpp"

#include <nlohmann/json.hpp>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace shakedown::analysis {
namespace {

using nlohmann::json;

// Records are flat binary, written and read member by member in the order of the structs
// (trace/trace_format.hpp, core/result.hpp): both ends are the same program, so no field needs a
// name or a type tag. Numbers travel as their bytes (a double bit for bit), a string or a list as
// its length then its elements, an optional as a flag then its value. Only a trace's /inventory,
// a free-form JSON document, travels as MessagePack inside. Building a JSON tree of every rank's
// metrics only to serialise it, and parsing one back in the analyzer, cost most of the handover.

class Writer {
public:
    std::vector<std::uint8_t> bytes;

    template <typename T>
        requires std::is_arithmetic_v<T>
    void raw(T value) {
        const std::size_t at = bytes.size();
        bytes.resize(at + sizeof value);
        std::memcpy(bytes.data() + at, &value, sizeof value);
    }
    void size(std::size_t n) { raw(static_cast<std::uint64_t>(n)); }
    void integer(int value) { raw(static_cast<std::int64_t>(value)); }
    void real(double value) { raw(value); }
    void flag(bool value) { raw(static_cast<std::uint8_t>(value ? 1 : 0)); }
    template <typename Enum>
    void number(Enum value) {
        integer(static_cast<int>(value));
    }
    void text(std::string_view value) {
        size(value.size());
        bytes.insert(bytes.end(), value.begin(), value.end());
    }
    void blob(const std::vector<std::uint8_t>& value) {
        size(value.size());
        bytes.insert(bytes.end(), value.begin(), value.end());
    }
    void text_map(const std::map<std::string, std::string>& map) {
        size(map.size());
        for (const auto& [key, value] : map) {
            text(key);
            text(value);
        }
    }
};

class Reader {
public:
    explicit Reader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

    template <typename T>
        requires std::is_arithmetic_v<T>
    T raw() {
        need(sizeof(T));
        T value;
        std::memcpy(&value, bytes_.data() + at_, sizeof value);
        at_ += sizeof value;
        return value;
    }
    // A count of elements each at least `least` bytes long: never more than the bytes left hold.
    std::size_t size(std::size_t least = 1) {
        const auto n = raw<std::uint64_t>();
        if (least > 0 && n > (bytes_.size() - at_) / least) fail();
        return static_cast<std::size_t>(n);
    }
    int integer() {
        const auto value = raw<std::int64_t>();
        if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) fail();
        return static_cast<int>(value);
    }
    double real() { return raw<double>(); }
    bool flag() {
        const auto value = raw<std::uint8_t>();
        if (value > 1) fail();
        return value == 1;
    }
    template <typename Enum>
    Enum number() {
        return static_cast<Enum>(integer());
    }
    std::string text() {
        const std::size_t n = size();
        std::string value(reinterpret_cast<const char*>(bytes_.data() + at_), n);
        at_ += n;
        return value;
    }
    std::span<const std::uint8_t> blob() {
        const std::size_t n = size();
        const std::span<const std::uint8_t> value = bytes_.subspan(at_, n);
        at_ += n;
        return value;
    }
    std::map<std::string, std::string> text_map() {
        std::map<std::string, std::string> map;
        for (std::size_t n = size(16); n > 0; --n) {
            std::string key = text();
            map.insert_or_assign(std::move(key), text());
        }
        return map;
    }
    bool at_end() const { return at_ == bytes_.size(); }
    [[noreturn]] static void fail() { throw std::runtime_error("a reader's record is malformed: truncated or corrupt"); }

private:
    void need(std::size_t n) const {
        if (n > bytes_.size() - at_) fail();
    }
    std::span<const std::uint8_t> bytes_;
    std::size_t at_ = 0;
};

void encode_table(Writer& out, const SampleTable& table) {
    out.size(table.columns().size());
    for (const SampleTable::Column& column : table.columns()) {
        out.text(column.name);
        out.text(column.unit);
    }
    out.size(table.rows().size());
    for (const std::vector<double>& row : table.rows()) {
        out.size(row.size());
        for (double value : row) out.real(value);
    }
}

SampleTable decode_table(Reader& in) {
    std::vector<SampleTable::Column> columns(in.size(16));
    for (SampleTable::Column& column : columns) {
        column.name = in.text();
        column.unit = in.text();
    }
    const std::size_t rows = in.size(8);
    const bool none = columns.empty();  // a default table: a test that recorded no samples
    SampleTable table;
    if (!none) table = SampleTable(std::move(columns));
    for (std::size_t r = 0; r < rows; ++r) {
        std::vector<double> row(in.size(8));
        for (double& value : row) value = in.real();
        if (!none) table.add_row(std::move(row));
    }
    return table;
}

void encode_test(Writer& out, const TestResult& test) {
    out.text(test.key);
    out.number(test.status);
    out.text(test.reason);
    out.real(test.start_utc);
    out.real(test.end_utc);
    out.text_map(test.parameters);
    out.size(test.metrics.size());
    for (const Metric& metric : test.metrics) {
        out.text(metric.name);
        out.text(metric.unit);
        out.real(metric.value);
        out.flag(metric.nominal.has_value());
        if (metric.nominal) out.real(*metric.nominal);
        out.number(metric.better);
    }
    encode_table(out, test.samples);
    out.flag(test.bad_input);
    out.flag(test.cause.has_value());
    if (test.cause) out.number(*test.cause);
}

TestResult decode_test(Reader& in) {
    TestResult test;
    test.key = in.text();
    test.status = in.number<Status>();
    test.reason = in.text();
    test.start_utc = in.real();
    test.end_utc = in.real();
    test.parameters = in.text_map();
    const std::size_t metrics = in.size(16);
    test.metrics.reserve(metrics);
    for (std::size_t m = 0; m < metrics; ++m) {
        Metric metric;
        metric.name = in.text();
        metric.unit = in.text();
        metric.value = in.real();
        if (in.flag()) metric.nominal = in.real();
        metric.better = in.number<Better>();
        test.metrics.push_back(std::move(metric));
    }
    test.samples = decode_table(in);
    test.bad_input = in.flag();
    if (in.flag()) test.cause = in.number<Cause>();
    return test;
}

void encode_header(Writer& out, const TraceHeader& header) {
    out.text(header.schema_version);
    out.text(header.shakedown_version);
    out.text(header.run_id);
    out.text(header.run_uuid);
    out.integer(header.rank);
    out.integer(header.world_size);
    out.text(header.node);
    out.integer(header.local_rank);
    out.real(header.start_utc);
    const RankBinding& binding = header.binding;
    out.text(binding.cpu_affinity);
    out.flag(binding.cuda_visible_devices.has_value());
    if (binding.cuda_visible_devices) out.text(*binding.cuda_visible_devices);
    out.integer(binding.gpu_ordinal);
    out.text_map(binding.slurm);
}

TraceHeader decode_header(Reader& in) {
    TraceHeader header;
    header.schema_version = in.text();
    header.shakedown_version = in.text();
    header.run_id = in.text();
    header.run_uuid = in.text();
    header.rank = in.integer();
    header.world_size = in.integer();
    header.node = in.text();
    header.local_rank = in.integer();
    header.start_utc = in.real();
    header.binding.cpu_affinity = in.text();
    if (in.flag()) header.binding.cuda_visible_devices = in.text();
    header.binding.gpu_ordinal = in.integer();
    header.binding.slurm = in.text_map();
    return header;
}

void encode_trace(Writer& out, const Trace& trace) {
    encode_header(out, trace.header);
    out.number(trace.status);
    out.real(trace.end_utc);
    out.text(trace.config_yaml);
    out.blob(json::to_msgpack(trace.inventory));
    out.size(trace.tests.size());
    for (const TestResult& test : trace.tests) encode_test(out, test);
    out.size(trace.telemetry.size());
    for (const auto& [device, table] : trace.telemetry) {
        out.text(device);
        encode_table(out, table);
    }
    out.size(trace.telemetry_attributes.size());
    for (const auto& [device, attributes] : trace.telemetry_attributes) {
        out.text(device);
        out.text_map(attributes);
    }
    out.size(trace.events.size());
    for (const Event& event : trace.events) {
        out.real(event.t);
        out.number(event.severity);
        out.text(event.text);
    }
    out.flag(trace.stalled.has_value());
    if (trace.stalled) {
        out.text(trace.stalled->activity.test);
        out.text(trace.stalled->activity.phase);
        out.size(trace.stalled->activity.waiting_for.size());
        for (int rank : trace.stalled->activity.waiting_for) out.integer(rank);
        out.text(trace.stalled->noticed_by);
        out.real(trace.stalled->late_s);
    }
}

Trace decode_trace(Reader& in) {
    Trace trace;
    trace.header = decode_header(in);
    trace.status = in.number<TraceStatus>();
    trace.end_utc = in.real();
    trace.config_yaml = in.text();
    const std::span<const std::uint8_t> inventory = in.blob();
    try {
        trace.inventory = json::from_msgpack(inventory.begin(), inventory.end());
    } catch (const json::exception& error) {
        throw std::runtime_error(std::string("a reader's record is malformed: ") + error.what());
    }
    const std::size_t tests = in.size(64);
    trace.tests.reserve(tests);
    for (std::size_t t = 0; t < tests; ++t) trace.tests.push_back(decode_test(in));
    for (std::size_t n = in.size(24); n > 0; --n) {
        std::string device = in.text();
        trace.telemetry.insert_or_assign(std::move(device), decode_table(in));
    }
    for (std::size_t n = in.size(16); n > 0; --n) {
        std::string device = in.text();
        trace.telemetry_attributes.insert_or_assign(std::move(device), in.text_map());
    }
    const std::size_t events = in.size(24);
    trace.events.reserve(events);
    for (std::size_t e = 0; e < events; ++e) {
        Event event;
        event.t = in.real();
        event.severity = in.number<Severity>();
        event.text = in.text();
        trace.events.push_back(std::move(event));
    }
    if (in.flag()) {
        StalledAt stalled;
        stalled.activity.test = in.text();
        stalled.activity.phase = in.text();
        stalled.activity.waiting_for.resize(in.size(8));
        for (int& rank : stalled.activity.waiting_for) rank = in.integer();
        stalled.noticed_by = in.text();
        stalled.late_s = in.real();
        trace.stalled = std::move(stalled);
    }
    return trace;
}

}  // namespace

std::vector<std::uint8_t> encode_rank_read(const RankRecord& record) {
    Writer out;
    out.bytes.reserve(8192);
    out.text(record.node);
    out.integer(record.local_rank);
    out.number(record.problem);
    out.text(record.problem_text);
    out.flag(record.trace.has_value());
    if (record.trace) encode_trace(out, *record.trace);
    out.flag(record.inventory_read);
    return std::move(out.bytes);
}

void decode_rank_read(std::span<const std::uint8_t> bytes, RankRecord& record) {
    Reader in(bytes);
    record.node = in.text();
    record.local_rank = in.integer();
    record.problem = in.number<RankProblem>();
    record.problem_text = in.text();
    if (in.flag()) record.trace = decode_trace(in);
    else record.trace.reset();
    record.inventory_read = in.flag();
    if (!in.at_end()) Reader::fail();
}

}  // namespace shakedown::analysis
