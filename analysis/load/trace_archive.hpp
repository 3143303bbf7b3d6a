// The trace's values (trace/trace_format.hpp, core/result.hpp) in cereal's binary archive: what a
// forked reader process hands back to the analyzer (load/rank_codec.hpp, the leader-trace rules).
// cereal's binary archive writes the members in the order the functions below name them, with no
// keys and no tree in between: a record is what the structs hold, and decoding it builds them
// directly. Enums travel as their numbers (cereal's default), since both ends are the same program.
// The functions are found by argument-dependent lookup, so they live in the types' namespace.
#pragma once

#include "trace/trace_format.hpp"

#include <cereal/archives/binary.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <new>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace shakedown {

template <class Archive>
void serialize(Archive& archive, Metric& metric) {
    archive(metric.name, metric.unit, metric.value, metric.nominal, metric.better);
}

template <class Archive>
void serialize(Archive& archive, SampleTable::Column& column) {
    archive(column.name, column.unit);
}

template <class Archive>
void save(Archive& archive, const SampleTable& table) {
    archive(table.columns(), table.rows());
}

template <class Archive>
void load(Archive& archive, SampleTable& table) {
    std::vector<SampleTable::Column> columns;
    std::vector<std::vector<double>> rows;
    archive(columns, rows);
    table = columns.empty() ? SampleTable() : SampleTable(std::move(columns));  // empty: a test with no samples
    for (std::vector<double>& row : rows) table.add_row(std::move(row));
}

template <class Archive>
void serialize(Archive& archive, TimeWindow& window) {
    archive(window.start_utc, window.end_utc);
}

template <class Archive>
void serialize(Archive& archive, TestResult& test) {
    archive(test.key, test.status, test.reason, test.start_utc, test.end_utc, test.measured, test.parameters, test.metrics,
            test.samples, test.bad_input, test.cause);
}

template <class Archive>
void serialize(Archive& archive, RankBinding& binding) {
    archive(binding.cpu_affinity, binding.cuda_visible_devices, binding.gpu_ordinal, binding.slurm);
}

template <class Archive>
void serialize(Archive& archive, TraceHeader& header) {
    archive(header.schema_version, header.shakedown_version, header.run_id, header.run_uuid, header.rank,
            header.world_size, header.node, header.local_rank, header.start_utc, header.binding);
}

template <class Archive>
void serialize(Archive& archive, Event& event) {
    archive(event.t, event.severity, event.text);
}

template <class Archive>
void serialize(Archive& archive, ActivitySnapshot& activity) {
    archive(activity.test, activity.phase, activity.waiting_for);
}

template <class Archive>
void serialize(Archive& archive, StalledAt& stalled) {
    archive(stalled.activity, stalled.noticed_by, stalled.late_s);
}

// The inventory is a JSON document of the trace's own: it travels as its MessagePack bytes.
template <class Archive>
void save(Archive& archive, const Trace& trace) {
    archive(trace.header, trace.status, trace.end_utc, trace.config_yaml, nlohmann::json::to_msgpack(trace.inventory),
            trace.tests, trace.telemetry, trace.telemetry_attributes, trace.events, trace.stalled);
}

template <class Archive>
void load(Archive& archive, Trace& trace) {
    std::vector<std::uint8_t> inventory;
    archive(trace.header, trace.status, trace.end_utc, trace.config_yaml, inventory, trace.tests, trace.telemetry,
            trace.telemetry_attributes, trace.events, trace.stalled);
    trace.inventory = nlohmann::json::from_msgpack(inventory);
}

// `value` as the archive's bytes.
template <class Value>
std::vector<std::uint8_t> to_archive_bytes(const Value& value) {
    std::ostringstream bytes(std::ios::binary);
    {
        cereal::BinaryOutputArchive archive(bytes);
        archive(value);
    }
    const std::string text = std::move(bytes).str();
    return {text.begin(), text.end()};
}

// Reads `value` from to_archive_bytes() bytes; std::runtime_error "what: why" on bytes that are not.
template <class Value>
void from_archive_bytes(std::span<const std::uint8_t> bytes, Value& value, const char* what) {
    std::istringstream text(std::string(bytes.begin(), bytes.end()), std::ios::binary);
    try {
        cereal::BinaryInputArchive archive(text);
        archive(value);
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(std::string(what) + ": a length larger than memory");
    } catch (const std::exception& error) {  // cereal's, the inventory's JSON, a damaged length or row
        throw std::runtime_error(std::string(what) + ": " + error.what());
    }
}

}  // namespace shakedown
