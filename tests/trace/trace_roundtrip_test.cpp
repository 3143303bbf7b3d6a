// Everything written comes back equal: header, config, inventory JSON, tests with metrics,
// samples, parameters and reasons, telemetry appended in chunks, events.
#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"
#include "trace_test_support.hpp"

#include <cmath>

namespace shakedown {
namespace {

using trace_test::ScratchDir;

void expect_tables_equal(const SampleTable& expected, const SampleTable& actual) {
    ASSERT_EQ(expected.columns().size(), actual.columns().size());
    for (std::size_t i = 0; i < expected.columns().size(); ++i) {
        EXPECT_EQ(expected.columns()[i].name, actual.columns()[i].name);
        EXPECT_EQ(expected.columns()[i].unit, actual.columns()[i].unit);
    }
    EXPECT_EQ(expected.rows(), actual.rows());
}

void expect_results_equal(const TestResult& expected, const TestResult& actual) {
    EXPECT_EQ(expected.key, actual.key);
    EXPECT_EQ(expected.status, actual.status);
    EXPECT_EQ(expected.reason, actual.reason);
    EXPECT_EQ(expected.start_utc, actual.start_utc);
    EXPECT_EQ(expected.end_utc, actual.end_utc);
    ASSERT_EQ(expected.measured.has_value(), actual.measured.has_value()) << expected.key;
    if (expected.measured) {
        EXPECT_EQ(expected.measured->start_utc, actual.measured->start_utc);
        EXPECT_EQ(expected.measured->end_utc, actual.measured->end_utc);
    }
    EXPECT_EQ(expected.parameters, actual.parameters);
    ASSERT_EQ(expected.metrics.size(), actual.metrics.size());
    for (std::size_t i = 0; i < expected.metrics.size(); ++i) {
        EXPECT_EQ(expected.metrics[i].name, actual.metrics[i].name);
        EXPECT_EQ(expected.metrics[i].unit, actual.metrics[i].unit);
        EXPECT_EQ(expected.metrics[i].value, actual.metrics[i].value);
        EXPECT_EQ(expected.metrics[i].nominal, actual.metrics[i].nominal);
        EXPECT_EQ(expected.metrics[i].better, actual.metrics[i].better);
    }
    expect_tables_equal(expected.samples, actual.samples);
}

SampleTable gpu_samples(double t0, int rows) {
    SampleTable table({{"t", "s"}, {"temperature", "C"}, {"power", "W"}, {"sm_clock", "MHz"}});
    for (int i = 0; i < rows; ++i) table.add_row({t0 + 0.1 * i, 40.0 + i, 350.5 + i, 1980.0});
    return table;
}

TEST(TraceRoundTrip, EverythingWrittenReadsBackEqual) {
    ScratchDir dir;
    const auto path = dir / "rank-00003.h5";
    TestResult stream = trace_test::sample_stream_result();
    stream.measured = TimeWindow{stream.start_utc + 0.25, stream.end_utc - 0.5};  // schema 1.2; pingpong has none
    const TestResult pingpong = trace_test::sample_pingpong_result();
    TestResult waived;
    waived.key = "gpu_stream";
    waived.waive("no CUDA device");
    const SampleTable first_chunk = gpu_samples(1795930765.0, 3);
    const SampleTable second_chunk = gpu_samples(1795930765.3, 700);  // crosses a 512-row chunk
    SampleTable host({{"t", "s"}, {"load1", ""}});
    host.add_row({1795930765.0, 0.5});
    const Event warning{1795930766.0, Severity::warning, "GPU0 power capped at 500 W"};
    const std::map<std::string, std::string> gpu_identity = {
        {"uuid", "GPU-5b1c2d3e-0000-1111-2222-333344445555"}, {"pci_bus_id", "00000000:1B:00.0"}, {"name", "NVIDIA H200"}};
    const Event error{1795930769.0, Severity::error, "mpi_pingpong: payload mismatch"};
    {
        TraceWriter writer(path, trace_test::sample_header(), trace_test::sample_config(),
                           trace_test::sample_inventory());
        EXPECT_EQ(writer.path(), path);
        writer.write_test(stream);
        writer.append_telemetry("gpu0", first_chunk, gpu_identity);
        writer.append_event(warning);
        writer.write_test(pingpong);
        writer.append_telemetry("gpu0", second_chunk, gpu_identity);  // written once, at creation
        writer.append_telemetry("host", host);
        writer.append_event(error);
        writer.write_test(waived);
        writer.finish(TraceStatus::complete, 1795930771.5);
    }

    const Trace trace = read_trace(path);
    const TraceHeader expected_header = trace_test::sample_header();
    EXPECT_EQ(trace.header.schema_version, trace_schema_version);
    EXPECT_EQ(trace.header.shakedown_version, expected_header.shakedown_version);
    EXPECT_EQ(trace.header.run_id, expected_header.run_id);
    EXPECT_EQ(trace.header.rank, expected_header.rank);
    EXPECT_EQ(trace.header.world_size, expected_header.world_size);
    EXPECT_EQ(trace.header.node, expected_header.node);
    EXPECT_EQ(trace.header.local_rank, expected_header.local_rank);
    EXPECT_EQ(trace.header.start_utc, expected_header.start_utc);
    EXPECT_EQ(trace.status, TraceStatus::complete);
    EXPECT_EQ(trace.end_utc, 1795930771.5);
    EXPECT_EQ(trace.config_yaml, trace_test::sample_config());
    EXPECT_EQ(trace.inventory, trace_test::sample_inventory()) << trace.inventory.dump(1);

    ASSERT_EQ(trace.tests.size(), 3u);  // in the order they ran, not by name
    expect_results_equal(stream, trace.tests[0]);
    expect_results_equal(pingpong, trace.tests[1]);
    expect_results_equal(waived, trace.tests[2]);
    EXPECT_EQ(trace.tests[1].status, Status::fail);
    EXPECT_EQ(trace.tests[2].reason, "no CUDA device");
    EXPECT_TRUE(trace.tests[2].samples.columns().empty());
    EXPECT_FALSE(trace.tests[0].metrics[1].nominal.has_value());  // NaN on disk means none

    ASSERT_EQ(trace.telemetry.size(), 2u);
    SampleTable expected_gpu = first_chunk;
    expected_gpu.append(second_chunk);
    expect_tables_equal(expected_gpu, trace.telemetry.at("gpu0"));
    expect_tables_equal(host, trace.telemetry.at("host"));
    EXPECT_EQ(trace.telemetry_attributes.at("gpu0"), gpu_identity);
    EXPECT_TRUE(trace.telemetry_attributes.at("host").empty());

    ASSERT_EQ(trace.events.size(), 2u);
    EXPECT_EQ(trace.events[0].t, warning.t);
    EXPECT_EQ(trace.events[0].severity, warning.severity);
    EXPECT_EQ(trace.events[0].text, warning.text);
    EXPECT_EQ(trace.events[1].severity, Severity::error);
    EXPECT_EQ(trace.events[1].text, error.text);
}

TEST(TraceRoundTrip, InventoryKeepsJsonTypes) {
    ScratchDir dir;
    const auto path = dir / "rank-00000.h5";
    { TraceWriter writer(path, trace_test::sample_header(0), "", trace_test::sample_inventory()); }
    const nlohmann::json inventory = read_trace(path).inventory;
    EXPECT_TRUE(inventory["numbers"]["negative"].is_number_integer());
    EXPECT_EQ(inventory["numbers"]["negative"].get<long long>(), -42);
    EXPECT_TRUE(inventory["numbers"]["big_unsigned"].is_number_unsigned());
    EXPECT_EQ(inventory["numbers"]["big_unsigned"].get<unsigned long long>(), 18446744073709551615ull);
    EXPECT_TRUE(inventory["numbers"]["pi"].is_number_float());
    EXPECT_TRUE(inventory["flags"]["nvml"].is_boolean());
    EXPECT_TRUE(inventory["blas"]["openblas_config"].is_null());
    EXPECT_TRUE(inventory["network"].is_array());
    EXPECT_TRUE(inventory["network"].empty());
    EXPECT_TRUE(inventory["empty_object"].is_object());
    EXPECT_TRUE(inventory["nested arrays"][1].is_array());
    EXPECT_TRUE(inventory["nested arrays"][3].is_null());
    EXPECT_EQ(inventory["odd keys"][""], "empty key");
    EXPECT_EQ(inventory["odd keys"]["a/b"], 1);
    EXPECT_EQ(inventory["odd keys"][".hidden"], "dot");
    // Documented: an array mixing integers and floats comes back as floats (equal values).
    EXPECT_TRUE(inventory["numbers"]["mixed"][0].is_number_float());
    EXPECT_EQ(inventory["gpus"][1]["pci_bus_id"], "0000:3b:00.0");
}

TEST(TraceRoundTrip, ManyArrayElementsKeepTheirOrder) {
    ScratchDir dir;
    const auto path = dir / "rank-00000.h5";
    nlohmann::json inventory;
    for (int i = 0; i < 12; ++i) inventory["gpus"].push_back({{"index", i}});  // "10" sorts before "2"
    { TraceWriter writer(path, trace_test::sample_header(0), "", inventory); }
    EXPECT_EQ(read_trace(path).inventory, inventory);
}

TEST(TraceRoundTrip, DeviceAttributesMayNotTakeTheUnitsName) {
    ScratchDir dir;
    TraceWriter writer(dir / "rank-00000.h5", trace_test::sample_header(0), "", nullptr);
    EXPECT_THROW(writer.append_telemetry("gpu0", gpu_samples(1795930765.0, 1), {{"units", "W"}}), TraceError);
}

TEST(TraceRoundTrip, NullInventoryAndEmptyTablesAreFine) {
    ScratchDir dir;
    const auto path = dir / "rank-00000.h5";
    TestResult empty;
    empty.key = "nothing_measured";
    empty.samples = SampleTable(std::vector<SampleTable::Column>{{"size", "B"}});  // columns, no rows
    {
        TraceWriter writer(path, trace_test::sample_header(0), "", nullptr);
        writer.write_test(empty);
        writer.append_telemetry("host", SampleTable{});  // nothing sampled: nothing written
        writer.finish(TraceStatus::complete, 1795930800.0);
    }
    const Trace trace = read_trace(path);
    EXPECT_EQ(trace.inventory, nlohmann::json::object());  // documented: null is stored as {}
    ASSERT_EQ(trace.tests.size(), 1u);
    EXPECT_TRUE(trace.tests[0].metrics.empty());
    ASSERT_EQ(trace.tests[0].samples.columns().size(), 1u);
    EXPECT_EQ(trace.tests[0].samples.columns()[0].unit, "B");
    EXPECT_TRUE(trace.tests[0].samples.empty());
    EXPECT_TRUE(trace.telemetry.empty());
    EXPECT_TRUE(trace.events.empty());
}

// Schema 1.1 adds the root attribute run_uuid; a trace without it (1.0) reads with an empty one.
TEST(TraceRoundTrip, RunUuidReadsBackAndIsEmptyInATraceWithoutOne) {
    ScratchDir dir;
    TraceHeader header = trace_test::sample_header(0);
    header.run_uuid = "0f8e2a3b-1c4d-4e5f-8a6b-7c8d9e0f1a2b";
    const auto with = dir / "rank-00000.h5";
    TraceWriter(with, header, "", nullptr).finish(TraceStatus::complete, 1795930800.0);
    EXPECT_EQ(read_trace(with).header.run_uuid, header.run_uuid);
    EXPECT_EQ(read_trace(with).header.schema_version, trace_schema_version);
    header.run_uuid.clear();
    header.schema_version = "1.0";
    const auto without = dir / "rank-00001.h5";
    TraceWriter(without, header, "", nullptr).finish(TraceStatus::complete, 1795930800.0);
    const Trace old = read_trace(without);
    EXPECT_EQ(old.header.schema_version, "1.0");
    EXPECT_EQ(old.header.run_uuid, "");
    EXPECT_EQ(old.status, TraceStatus::complete);
}

TEST(TraceRoundTrip, LeanReadSkipsTheBulk) {
    ScratchDir dir;
    const auto path = dir / "rank-00001.h5";
    {
        TraceWriter writer(path, trace_test::sample_header(1), trace_test::sample_config(),
                           trace_test::sample_inventory());
        writer.write_test(trace_test::sample_stream_result());
        writer.append_telemetry("gpu0", gpu_samples(1795930765.0, 50));
        writer.append_event({1795930766.0, Severity::info, "started"});
        writer.finish(TraceStatus::complete, 1795930771.5);
    }
    TraceReadOptions lean;
    lean.samples = lean.telemetry = lean.inventory = lean.config = lean.events = false;
    const Trace trace = read_trace(path, lean);
    ASSERT_EQ(trace.tests.size(), 1u);
    EXPECT_EQ(trace.tests[0].metrics.size(), 2u);
    EXPECT_EQ(trace.tests[0].parameters.size(), 3u);
    EXPECT_TRUE(trace.tests[0].samples.columns().empty());
    EXPECT_TRUE(trace.telemetry.empty());
    EXPECT_TRUE(trace.inventory.is_null());
    EXPECT_TRUE(trace.config_yaml.empty());
    EXPECT_TRUE(trace.events.empty());
}

TEST(TraceRoundTrip, WriterRejectsWhatItCannotStore) {
    ScratchDir dir;
    TraceWriter writer(dir / "rank-00000.h5", trace_test::sample_header(0), "", nullptr);
    TestResult duplicate_columns;
    duplicate_columns.key = "bad_columns";
    duplicate_columns.samples = SampleTable({{"size", "B"}, {"size", "B"}});
    EXPECT_THROW(writer.write_test(duplicate_columns), std::invalid_argument);

    writer.write_test(trace_test::sample_stream_result());
    try {
        writer.write_test(trace_test::sample_stream_result());
        FAIL() << "a second test with the same key was accepted";
    } catch (const TraceError& error) {
        EXPECT_NE(std::string(error.what()).find("host_stream"), std::string::npos) << error.what();
    }
    writer.append_telemetry("gpu0", gpu_samples(0.0, 2));
    SampleTable other({{"t", "s"}, {"utilisation", "%"}});
    other.add_row({1.0, 50.0});
    EXPECT_THROW(writer.append_telemetry("gpu0", other), TraceError);
    // The failed writes left the trace readable with exactly what succeeded.
    writer.finish(TraceStatus::complete, 1.0);
    const Trace trace = read_trace(writer.path());
    ASSERT_EQ(trace.tests.size(), 1u);
    EXPECT_EQ(trace.telemetry.at("gpu0").size(), 2u);
}

}  // namespace
}  // namespace shakedown
