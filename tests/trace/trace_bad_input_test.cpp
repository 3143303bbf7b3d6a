// Files that are not shakedown traces: each must give one TraceError line naming the file
// and what is wrong, never a crash (these also run under AddressSanitizer).
#include "trace/trace_reader.hpp"
#include "trace/trace_writer.hpp"
#include "trace_test_support.hpp"

#include <fmt/format.h>
#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <functional>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace shakedown {
namespace {

using trace_test::ScratchDir;

// Runs read_trace and returns its error message; fails the test when it does not throw a
// one-line TraceError naming the file.
std::string read_error(const std::filesystem::path& path, const TraceReadOptions& options = {}) {
    try {
        read_trace(path, options);
    } catch (const TraceError& error) {
        const std::string message = error.what();
        EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0u) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        return message;
    } catch (const std::exception& error) {
        ADD_FAILURE() << "not a TraceError: " << error.what();
        return error.what();
    }
    ADD_FAILURE() << path << " was read as a trace";
    return {};
}

void write_real_trace(const std::filesystem::path& path) {
    TraceWriter writer(path, trace_test::sample_header(1), trace_test::sample_config(), trace_test::sample_inventory());
    writer.write_test(trace_test::sample_stream_result());
    writer.write_test(trace_test::sample_pingpong_result());
    SampleTable host({{"t", "s"}, {"load1", ""}});
    host.add_row({1795930765.0, 0.5});
    writer.append_telemetry("host", host);
    writer.append_event({1795930766.0, Severity::info, "hello"});
    writer.finish(TraceStatus::complete, 1795930771.5);
}

// Writes a real trace, then damages it with the raw HDF5 API.
std::filesystem::path damaged_trace(const ScratchDir& dir, const std::string& name,
                                    const std::function<void(hid_t)>& damage) {
    const auto path = dir / (name + ".h5");
    write_real_trace(path);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    EXPECT_GE(file, 0);
    damage(file);
    EXPECT_GE(H5Fclose(file), 0);
    return path;
}

// Replaces attribute `name` with a fixed-length (or, with `variable`, variable-length) string.
void set_string_attribute(hid_t object, const char* name, const char* value, bool variable = false) {
    H5Adelete(object, name);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, variable ? H5T_VARIABLE : std::strlen(value) + 1);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    EXPECT_GE(variable ? H5Awrite(attribute, type, &value) : H5Awrite(attribute, type, value), 0);
    H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
}

// How a damaged table is stored: as the writer stores every table (chunked, Fletcher-32), or not.
enum class Storage { checksummed_chunks, chunks_without_checksum, contiguous };

// A compound dataset with one row of zeros. Field kinds: 's' fixed 8-byte string, 'v'
// variable-length string, 'd' float64.
void create_table(hid_t parent, const char* name, const std::vector<std::pair<const char*, char>>& fields,
                  int rank = 1, Storage storage = Storage::checksummed_chunks) {
    std::vector<hid_t> types;
    std::size_t size = 0;
    for (const auto& field : fields) {
        hid_t type = H5Tcopy(field.second == 'd' ? H5T_NATIVE_DOUBLE : H5T_C_S1);
        if (field.second == 's') H5Tset_size(type, 8);
        if (field.second == 'v') H5Tset_size(type, H5T_VARIABLE);
        types.push_back(type);
        size += H5Tget_size(type);
    }
    const hid_t type = H5Tcreate(H5T_COMPOUND, size);
    std::size_t offset = 0;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        H5Tinsert(type, fields[i].first, offset, types[i]);
        offset += H5Tget_size(types[i]);
        H5Tclose(types[i]);
    }
    const hsize_t dims[2] = {1, 1};
    const hid_t space = H5Screate_simple(rank, dims, nullptr);
    const hid_t create = H5Pcreate(H5P_DATASET_CREATE);
    if (storage != Storage::contiguous) H5Pset_chunk(create, rank, dims);
    if (storage == Storage::checksummed_chunks) H5Pset_fletcher32(create);
    const hid_t dataset = H5Dcreate2(parent, name, type, space, H5P_DEFAULT, create, H5P_DEFAULT);
    H5Pclose(create);
    EXPECT_GE(dataset, 0);
    std::vector<char> zeros(size, 0);  // a null pointer is an empty variable-length string
    H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data());
    H5Dclose(dataset);
    H5Sclose(space);
    H5Tclose(type);
}

TEST(TraceBadInput, MissingEmptyTextAndFolder) {
    ScratchDir dir;
    EXPECT_NE(read_error(dir / "rank-00042.h5").find("no such file"), std::string::npos);

    const auto empty = dir / "empty.h5";
    trace_test::write_bytes(empty, "");
    EXPECT_NE(read_error(empty).find("empty file"), std::string::npos);

    const auto text = dir / "text.h5";
    trace_test::write_bytes(text, "this is not HDF5 at all, just some text\n");
    EXPECT_NE(read_error(text).find("not an HDF5 file"), std::string::npos);

    const auto folder = dir / "folder.h5";
    std::filesystem::create_directory(folder);
    EXPECT_NE(read_error(folder).find("not a regular file"), std::string::npos);
}

TEST(TraceBadInput, TruncatedAtManyLengths) {
    ScratchDir dir;
    const auto whole = dir / "whole.h5";
    write_real_trace(whole);
    const std::string bytes = trace_test::file_bytes(whole);
    ASSERT_GT(bytes.size(), 4096u);
    for (std::size_t length : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{100}, std::size_t{512},
                               std::size_t{2048}, bytes.size() / 2, bytes.size() - 100, bytes.size() - 1}) {
        const auto cut = dir / ("cut-" + std::to_string(length) + ".h5");
        trace_test::write_bytes(cut, bytes.substr(0, length));
        SCOPED_TRACE(cut.string());
        read_error(cut);
    }
}

TEST(TraceBadInput, OtherHdf5LayoutIsNotATrace) {
    ScratchDir dir;
    const auto path = dir / "other.h5";
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    H5Gclose(H5Gcreate2(file, "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(file);
    EXPECT_NE(read_error(path).find("not a shakedown trace"), std::string::npos);
}

struct Damage {
    const char* name;
    std::function<void(hid_t)> apply;
    const char* expected;  // part of the message
};

TEST(TraceBadInput, WrongLayoutInsideAnHdf5File) {
    const std::vector<Damage> damages = {
        {"no_schema_version", [](hid_t f) { H5Adelete(f, "schema_version"); }, "schema_version"},
        {"future_schema", [](hid_t f) { set_string_attribute(f, "schema_version", "2.0"); }, "not supported"},
        {"bad_status", [](hid_t f) { set_string_attribute(f, "status", "finished"); }, "'finished'"},
        {"node_variable_length", [](hid_t f) { set_string_attribute(f, "node", "node017", true); },
         "variable-length string"},
        {"no_status", [](hid_t f) { H5Adelete(f, "status"); }, "'status'"},
        {"rank_as_text", [](hid_t f) { set_string_attribute(f, "rank", "one"); }, "not an integer"},
        {"rank_out_of_range",
         [](hid_t f) {
             const long long rank = 99;
             const hid_t a = H5Aopen(f, "rank", H5P_DEFAULT);
             H5Awrite(a, H5T_NATIVE_LLONG, &rank);
             H5Aclose(a);
         },
         "world_size"},
        {"world_size_absurd",
         [](hid_t f) {
             const long long world_size = 2147483647;
             const hid_t a = H5Aopen(f, "world_size", H5P_DEFAULT);
             H5Awrite(a, H5T_NATIVE_LLONG, &world_size);
             H5Aclose(a);
         },
         "root attribute 'world_size' = 2147483647 is outside 1..1048576"},
        {"no_tests_group", [](hid_t f) { H5Ldelete(f, "tests", H5P_DEFAULT); }, "'tests'"},
        {"bad_test_status",
         [](hid_t f) {
             const hid_t g = H5Gopen2(f, "/tests/host_stream", H5P_DEFAULT);
             set_string_attribute(g, "status", "passed");
             H5Gclose(g);
         },
         "'passed'"},
        {"timed_phase_reversed",  // schema 1.2: a timed phase that ends before it starts
         [](hid_t f) {
             const hid_t g = H5Gopen2(f, "/tests/host_stream", H5P_DEFAULT);
             for (const auto& [name, value] : {std::pair{"measured_start_utc", 1795930767.0}, {"measured_end_utc", 1795930766.0}}) {
                 const hid_t space = H5Screate(H5S_SCALAR);
                 const hid_t a = H5Acreate2(g, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
                 H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
                 H5Aclose(a);
                 H5Sclose(space);
             }
             H5Gclose(g);
         },
         "timed phase that ends before it starts"},
        {"no_metrics", [](hid_t f) { H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT); }, "metrics"},
        {"metrics_is_a_group",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             H5Gclose(H5Gcreate2(f, "/tests/host_stream/metrics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
         },
         "not a dataset"},
        {"metrics_value_is_text",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/metrics",
                          {{"name", 's'}, {"unit", 's'}, {"value", 's'}, {"nominal", 'd'}, {"better", 's'}});
         },
         "field 'value' is not a number"},
        {"metrics_name_variable_length",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/metrics",
                          {{"name", 'v'}, {"unit", 's'}, {"value", 'd'}, {"nominal", 'd'}, {"better", 's'}});
         },
         // Refused by its stored size before its fields are read (a variable-length string is stored
         // as a heap reference): either way the table is named.
         "'/tests/host_stream/metrics' chunk at row 0 stores"},
        {"metrics_missing_field",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/metrics", {{"name", 's'}, {"value", 'd'}});
         },
         "no field 'unit'"},
        {"metrics_bad_better",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/metrics",
                          {{"name", 's'}, {"unit", 's'}, {"value", 'd'}, {"nominal", 'd'}, {"better", 's'}});
         },
         "better"},
        {"metrics_without_checksum",  // a flipped byte in it would be judged as a figure
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/metrics",
                          {{"name", 's'}, {"unit", 's'}, {"value", 'd'}, {"nominal", 'd'}, {"better", 's'}}, 1,
                          Storage::chunks_without_checksum);
         },
         "has no Fletcher-32 checksum, which every trace table has"},
        {"metrics_contiguous",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/metrics",
                          {{"name", 's'}, {"unit", 's'}, {"value", 'd'}, {"nominal", 'd'}, {"better", 's'}}, 1,
                          Storage::contiguous);
         },
         "is not stored in checksummed chunks"},
        {"metrics_two_dimensional",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/metrics", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/metrics",
                          {{"name", 's'}, {"unit", 's'}, {"value", 'd'}, {"nominal", 'd'}, {"better", 's'}}, 2);
         },
         "dimensions"},
        {"samples_units_mismatch",
         [](hid_t f) {
             const hid_t d = H5Dopen2(f, "/tests/host_stream/samples", H5P_DEFAULT);
             H5Adelete(d, "units");
             set_string_attribute(d, "units", "s");  // one unit for three columns
             H5Dclose(d);
         },
         "units"},
        {"samples_column_text",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/samples", H5P_DEFAULT);
             create_table(f, "/tests/host_stream/samples", {{"size", 's'}});
         },
         "units"},
        {"huge_claimed_extent",
         [](hid_t f) {
             H5Ldelete(f, "/tests/host_stream/samples", H5P_DEFAULT);
             const hsize_t rows = hsize_t{1} << 40, chunk = 1024, unlimited = H5S_UNLIMITED;
             const hid_t space = H5Screate_simple(1, &rows, &unlimited);
             const hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
             H5Pset_chunk(plist, 1, &chunk);
             const hid_t type = H5Tcreate(H5T_COMPOUND, 8);
             H5Tinsert(type, "x", 0, H5T_NATIVE_DOUBLE);
             H5Dclose(H5Dcreate2(f, "/tests/host_stream/samples", type, space, H5P_DEFAULT, plist, H5P_DEFAULT));
             H5Tclose(type);
             H5Pclose(plist);
             H5Sclose(space);
         },
         "claims"},
        {"soft_link_test",
         [](hid_t f) { H5Lcreate_soft("/tests/host_stream", f, "/tests/alias", H5P_DEFAULT, H5P_DEFAULT); },
         "soft or external link"},
        {"external_link_in_inventory",
         [](hid_t f) { H5Lcreate_external("/etc/passwd", "/x", f, "/inventory/outside", H5P_DEFAULT, H5P_DEFAULT); },
         "soft or external link"},
        {"inventory_cycle",
         [](hid_t f) { H5Lcreate_hard(f, "/inventory", f, "/inventory/cpu/again", H5P_DEFAULT, H5P_DEFAULT); },
         "deeper than"},
        {"inventory_dataset",
         [](hid_t f) {
             create_table(f, "/inventory/table", {{"x", 'd'}});
         },
         "not a group"},
        {"events_severity",
         [](hid_t f) {
             H5Ldelete(f, "/events", H5P_DEFAULT);
             create_table(f, "/events", {{"t", 'd'}, {"severity", 's'}, {"text", 's'}});
         },
         "severity"},
        {"telemetry_no_units",
         [](hid_t f) {
             const hid_t d = H5Dopen2(f, "/telemetry/host", H5P_DEFAULT);
             H5Adelete(d, "units");
             H5Dclose(d);
         },
         "units"},
        {"config_is_number",
         [](hid_t f) {
             H5Ldelete(f, "/config", H5P_DEFAULT);
             const hid_t space = H5Screate(H5S_SCALAR);
             H5Dclose(H5Dcreate2(f, "/config", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
             H5Sclose(space);
         },
         "'/config' is not a fixed-length string"},
    };
    ScratchDir dir;
    for (const Damage& damage : damages) {
        SCOPED_TRACE(damage.name);
        const auto path = damaged_trace(dir, damage.name, damage.apply);
        const std::string message = read_error(path);
        EXPECT_NE(message.find(damage.expected), std::string::npos) << message;
    }
}

TEST(TraceBadInput, LeanReadDoesNotLookAtSkippedParts) {
    ScratchDir dir;
    const auto path = damaged_trace(dir, "broken_bulk", [](hid_t f) {
        H5Ldelete(f, "/inventory", H5P_DEFAULT);
        H5Ldelete(f, "/telemetry", H5P_DEFAULT);
        H5Ldelete(f, "/events", H5P_DEFAULT);
        H5Ldelete(f, "/config", H5P_DEFAULT);
        const hid_t d = H5Dopen2(f, "/tests/host_stream/samples", H5P_DEFAULT);
        H5Adelete(d, "units");
        H5Dclose(d);
    });
    TraceReadOptions lean;
    lean.samples = lean.telemetry = lean.inventory = lean.config = lean.events = false;
    const Trace trace = read_trace(path, lean);
    EXPECT_EQ(trace.tests.size(), 2u);
    read_error(path);  // the full read does notice
}

// Replaces the first chunk of `dataset` with `size` raw bytes, filters recorded as applied:
// what a damaged chunk index entry (a wrong size field) looks like to a reader.
void plant_short_chunk(hid_t file, const char* dataset, std::size_t size) {
    const hid_t d = H5Dopen2(file, dataset, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    const hsize_t origin = 0;
    const std::vector<char> bytes(size, 'x');
    EXPECT_GE(H5Dwrite_chunk(d, H5P_DEFAULT, 0, &origin, bytes.size(), bytes.data()), 0);
    hsize_t stored = 0;
    EXPECT_GE(H5Dget_chunk_storage_size(d, &origin, &stored), 0);
    EXPECT_EQ(stored, size);
    H5Dclose(d);
}

// A checksummed chunk shorter than its 4-byte Fletcher-32 checksum made HDF5 1.10.8 read far
// out of bounds (SIGSEGV in H5_checksum_fletcher32). Each table's stored chunk size is
// checked against its shape first; these files are refused naming the table.
TEST(TraceBadInput, ChunkShorterThanItsChecksumIsRefused) {
    ScratchDir dir;
    const std::vector<std::pair<const char*, std::string>> tables = {
        {"/tests/host_stream/metrics", "'/tests/host_stream/metrics'"},
        {"/tests/host_stream/samples", "'/tests/host_stream/samples'"},
        {"/telemetry/host", "'/telemetry/host'"},
        {"/events", "'/events'"},
    };
    for (const auto& [table, named] : tables)
        for (const std::size_t size : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{40}}) {
            const std::string name = std::string(table).substr(1) + "-" + std::to_string(size);
            SCOPED_TRACE(name);
            std::string file_name = name;
            std::replace(file_name.begin(), file_name.end(), '/', '_');
            const auto path =
                damaged_trace(dir, file_name, [&, table = table](hid_t f) { plant_short_chunk(f, table, size); });
            const std::string message = read_error(path);
            EXPECT_NE(message.find(named), std::string::npos) << message;
            EXPECT_NE(message.find(fmt::format("stores {} bytes", size)), std::string::npos) << message;
        }
}

// The fuzz seed corpus holds such a file (metrics_chunk_of_2_bytes.h5: a synthetic rank file
// whose '/tests/dgemm_fp64/metrics' chunk was rewritten with H5Dwrite_chunk as 2 bytes); the
// other seeds are intact traces.
TEST(TraceBadInput, FuzzCorpusSeedsReadOrAreRefused) {
    const std::filesystem::path corpus = SHAKEDOWN_TRACE_CORPUS;
    const auto planted = corpus / "metrics_chunk_of_2_bytes.h5";
    const std::string message = read_error(planted);
    EXPECT_NE(message.find("'/tests/dgemm_fp64/metrics' chunk at row 0 stores 2 bytes"), std::string::npos) << message;
    int intact = 0;
    for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
        if (entry.path() == planted) continue;
        SCOPED_TRACE(entry.path().string());
        EXPECT_NO_THROW(read_trace(entry.path()));
        ++intact;
    }
    EXPECT_GE(intact, 2);
}

// HDF5 1.10.8 itself leaks a few free-list blocks when it gives up on some damaged files
// (LeakSanitizer shows them allocated inside libhdf5 only). Not ours to fix: the damaged-file
// reads below run with leak reporting off; every other test, including the wrong-layout and
// truncated files, runs with it on. HDF5's free lists are set to keep nothing, so no block
// allocated outside the scope is recycled (and lost) inside it.
class HostileReadScope {
public:
#if defined(__SANITIZE_ADDRESS__)
    HostileReadScope() {
        H5set_free_list_limits(0, 0, 0, 0, 0, 0);
        __lsan_disable();
    }
    ~HostileReadScope() { __lsan_enable(); }
#else
    HostileReadScope() = default;
#endif
    HostileReadScope(const HostileReadScope&) = delete;
    HostileReadScope& operator=(const HostileReadScope&) = delete;
};

bool same_tables(const SampleTable& a, const SampleTable& b) {
    if (a.rows() != b.rows() || a.columns().size() != b.columns().size()) return false;
    for (std::size_t i = 0; i < a.columns().size(); ++i)
        if (a.columns()[i].name != b.columns()[i].name || a.columns()[i].unit != b.columns()[i].unit) return false;
    return true;
}

// Everything the reader gives back, compared field by field (NaN-free sample data).
bool same_trace(const Trace& a, const Trace& b) {
    const auto same_header = [](const TraceHeader& x, const TraceHeader& y) {
        return x.schema_version == y.schema_version && x.shakedown_version == y.shakedown_version &&
               x.run_id == y.run_id && x.run_uuid == y.run_uuid && x.rank == y.rank && x.world_size == y.world_size && x.node == y.node &&
               x.local_rank == y.local_rank && x.start_utc == y.start_utc;
    };
    if (!same_header(a.header, b.header) || a.status != b.status || a.end_utc != b.end_utc ||
        a.config_yaml != b.config_yaml || a.inventory != b.inventory || a.tests.size() != b.tests.size() ||
        a.telemetry.size() != b.telemetry.size() || a.events.size() != b.events.size())
        return false;
    for (std::size_t t = 0; t < a.tests.size(); ++t) {
        const TestResult& x = a.tests[t];
        const TestResult& y = b.tests[t];
        if (x.key != y.key || x.status != y.status || x.reason != y.reason || x.start_utc != y.start_utc ||
            x.end_utc != y.end_utc || x.parameters != y.parameters || x.metrics.size() != y.metrics.size() ||
            !same_tables(x.samples, y.samples))
            return false;
        for (std::size_t m = 0; m < x.metrics.size(); ++m)
            if (x.metrics[m].name != y.metrics[m].name || x.metrics[m].unit != y.metrics[m].unit ||
                x.metrics[m].value != y.metrics[m].value || x.metrics[m].nominal != y.metrics[m].nominal ||
                x.metrics[m].better != y.metrics[m].better)
                return false;
    }
    for (const auto& [device, table] : a.telemetry)
        if (!b.telemetry.contains(device) || !same_tables(table, b.telemetry.at(device))) return false;
    for (std::size_t e = 0; e < a.events.size(); ++e)
        if (a.events[e].t != b.events[e].t || a.events[e].severity != b.events[e].severity ||
            a.events[e].text != b.events[e].text)
            return false;
    return true;
}

// Damaged bytes anywhere in a real trace (random, 0x00 and 0xFF runs of 1 to 16 bytes): the
// reader must either give back exactly what was written (the damage hit unused space) or
// throw TraceError; never crash, never throw anything else, and never return altered data
// (metadata is checksummed by the 1.8 format, tables by Fletcher-32).
TEST(TraceBadInput, CorruptedBytesAreRejectedOrHarmless) {
    ScratchDir dir;
    const auto whole = dir / "whole.h5";
    write_real_trace(whole);
    const std::string bytes = trace_test::file_bytes(whole);
    const Trace original = read_trace(whole);
    std::mt19937 random(20261130);
    int rejected = 0;
    int altered = 0;
    constexpr int trials = 300;
    for (int trial = 0; trial < trials; ++trial) {
        std::string damaged = bytes;
        const std::size_t position = random() % damaged.size();
        const std::size_t length = 1 + trial % 16;
        for (std::size_t i = position; i < std::min(damaged.size(), position + length); ++i)
            damaged[i] = static_cast<char>(trial % 3 == 0 ? 0xFF : trial % 3 == 1 ? 0x00 : random());
        const auto path = dir / "damaged.h5";
        trace_test::write_bytes(path, damaged);
        SCOPED_TRACE("damage at byte " + std::to_string(position) + ", " + std::to_string(length) + " bytes");
        const HostileReadScope hostile;
        try {
            if (!same_trace(original, read_trace(path))) ++altered;
        } catch (const TraceError& error) {
            ++rejected;
            EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
        }
    }
    RecordProperty("rejected", rejected);
    std::cout << rejected << " of " << trials << " damaged files rejected, " << altered
              << " read back altered, the rest read back unchanged\n";
    EXPECT_EQ(altered, 0);
}

}  // namespace
}  // namespace shakedown
