#include "trace/trace_reader.hpp"

#include "core/clock.hpp"
#include "core/input_limits.hpp"

#include "trace/hdf5_io.hpp"
#include "trace/json_hdf5.hpp"
#include "trace/trace_layout.hpp"
#include "trace/trace_tables.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstring>
#include <new>
#include <system_error>

namespace shakedown {
namespace {

namespace layout = trace_layout;
using hdf5::ErrorContext;

// The reader understands every 1.x schema (minor versions only add members).
constexpr std::string_view supported_trace_major = "1";

// Catches what HDF5 would say in many words before it is asked: no file, a folder, 0 bytes.
void check_plain_file(const std::filesystem::path& path, const ErrorContext& context) {
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (error || !std::filesystem::exists(status)) context.fail("no such file");
    if (!std::filesystem::is_regular_file(status)) context.fail("not a regular file");
    const auto size = std::filesystem::file_size(path, error);
    if (error) context.fail(fmt::format("cannot read its size: {}", error.message()));
    if (size == 0) context.fail("empty file (0 bytes), not a trace");
}

hdf5::File open_read_only(const std::filesystem::path& path, const ErrorContext& context) {
    const hdf5::PropertyList access = hdf5::trace_file_access(context);
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, access.get());
    if (id >= 0) return hdf5::File(id);
    const std::string reason = hdf5::innermost_error_message();
    if (reason.find("signature") != std::string::npos) context.fail("not an HDF5 file (no HDF5 signature)");
    if (reason.find("truncated") != std::string::npos) context.fail("truncated HDF5 file (" + reason + ")");
    context.fail("cannot open as HDF5: " + (reason.empty() ? std::string("unknown reason") : reason));
}

int require_int(hid_t object, const char* name, long long minimum, const ErrorContext& context,
                long long maximum = INT_MAX) {
    const long long value = hdf5::require_integer(object, name, context);
    if (value < minimum || value > maximum)
        context.fail(fmt::format("root attribute '{}' = {} is outside {}..{}", name, value, minimum, maximum));
    return static_cast<int>(value);
}

// A time stamp: a calendar time (core/clock.hpp); a larger figure is damage, not a date.
double require_time(hid_t object, const char* name, const ErrorContext& context) {
    const double seconds = hdf5::require_double(object, name, context);
    if (!is_calendar_time(seconds))
        context.fail(fmt::format("attribute '{}' = {} is not a time (0..{} s since 1970)", name, seconds, latest_calendar_utc));
    return seconds;
}

std::string read_string_dataset(hid_t parent, const char* name, const ErrorContext& context) {
    const hdf5::Dataset dataset = hdf5::open_dataset(parent, name, context);
    const std::string what = fmt::format("'/{}'", name);
    const hdf5::Datatype type(context.check(H5Dget_type(dataset.get()), "H5Dget_type", what));
    const hdf5::Dataspace space(context.check(H5Dget_space(dataset.get()), "H5Dget_space", what));
    if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
        context.fail(what + " is not a fixed-length string");
    const hdf5::Shape shape = hdf5::shape_of(space.get(), what, context);
    if (shape.count != 1) context.fail(what + " is not a single string");
    hdf5::require_all_chunks(dataset.get(), 1, what, context);
    const std::size_t size = H5Tget_size(type.get());
    if (size == 0 || size > hdf5::max_text_bytes)
        context.fail(fmt::format("{} has an implausible size of {} bytes", what, size));
    // Read into one byte more than stored, so the text always ends in a NUL.
    hdf5::Datatype memory_type = hdf5::text_type(size + 1, context);
    context.check(H5Tset_cset(memory_type.get(), H5Tget_cset(type.get())), "H5Tset_cset", what);
    std::string text(size + 1, '\0');
    context.check(H5Dread(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), "H5Dread", what);
    text.resize(std::strlen(text.c_str()));
    return text;
}

TraceHeader read_header(hid_t root, const ErrorContext& context) {
    if (!hdf5::open_attribute(root, layout::schema_version, context))
        context.fail("not a shakedown trace (the root has no 'schema_version' attribute)");
    TraceHeader header;
    header.schema_version = hdf5::require_string(root, layout::schema_version, context);
    const std::string_view major = std::string_view(header.schema_version).substr(0, header.schema_version.find('.'));
    if (major != supported_trace_major)
        context.fail(fmt::format("trace schema_version '{}' is not supported (this reader reads {}.x)",
                                 header.schema_version, supported_trace_major));
    header.shakedown_version = hdf5::require_string(root, layout::shakedown_version, context);
    header.run_id = hdf5::require_string(root, layout::run_id, context);
    if (hdf5::open_attribute(root, layout::run_uuid, context))  // schema 1.1
        header.run_uuid = hdf5::require_string(root, layout::run_uuid, context);
    header.node = hdf5::require_string(root, layout::node, context);
    header.world_size = require_int(root, layout::world_size, 1, context, input_limits::max_world_size);
    header.rank = require_int(root, layout::rank, 0, context);
    header.local_rank = require_int(root, layout::local_rank, 0, context, input_limits::max_world_size - 1);
    if (header.rank >= header.world_size)
        context.fail(fmt::format("rank {} is not below world_size {}", header.rank, header.world_size));
    header.start_utc = require_time(root, layout::start_utc, context);
    // The binding: each attribute optional (older traces have none of them).
    auto& binding = header.binding;
    if (hdf5::open_attribute(root, layout::cpu_affinity, context))
        binding.cpu_affinity = hdf5::require_string(root, layout::cpu_affinity, context);
    if (hdf5::open_attribute(root, layout::gpu_ordinal, context))
        binding.gpu_ordinal = require_int(root, layout::gpu_ordinal, -1, context, input_limits::max_world_size);
    if (hdf5::open_attribute(root, layout::cuda_visible_devices, context))
        binding.cuda_visible_devices = hdf5::require_string(root, layout::cuda_visible_devices, context);
    for (const auto name : slurm_binding_variables) {
        const std::string attribute(name);
        if (hdf5::open_attribute(root, attribute, context))
            binding.slurm.emplace(attribute, hdf5::require_string(root, attribute, context));
    }
    return header;
}

TestResult read_test(hid_t tests, const std::string& name, const TraceReadOptions& options,
                     const ErrorContext& context) {
    const hdf5::Group group = hdf5::open_group(tests, name, context);
    TestResult result;
    result.key = hdf5::unescape_name(name);
    const std::string status = hdf5::require_string(group.get(), layout::status, context);
    const std::optional<Status> parsed = status_from_string(status);
    if (!parsed)
        context.fail(fmt::format("test '{}' has status '{}' (expected pass, fail, waived or error)", result.key, status));
    result.status = *parsed;
    result.reason = hdf5::require_string(group.get(), layout::reason, context);
    if (const auto attribute = hdf5::open_attribute(group.get(), layout::cause, context)) {
        if (attribute->shape.kind != hdf5::Shape::Kind::scalar) context.fail(attribute->what + " is not a single value");
        const std::string text = hdf5::read_strings(*attribute, context).front();
        result.cause = cause_from_string(text);
        if (!result.cause)
            context.fail(fmt::format("test '{}' has cause '{}' (expected hardware, configuration or software)", result.key, text));
    }
    result.start_utc = require_time(group.get(), layout::start_utc, context);
    result.end_utc = require_time(group.get(), layout::end_utc, context);
    if (hdf5::open_attribute(group.get(), layout::measured_start_utc, context)) {
        TimeWindow measured{require_time(group.get(), layout::measured_start_utc, context),
                            require_time(group.get(), layout::measured_end_utc, context)};
        if (!(measured.end_utc >= measured.start_utc))
            context.fail(fmt::format("test '{}' has a timed phase that ends before it starts ({} < {})", result.key,
                                     measured.end_utc, measured.start_utc));
        result.measured = measured;
    }

    if (hdf5::hard_link_exists(group.get(), layout::parameters, context)) {
        const hdf5::Group parameters = hdf5::open_group(group.get(), layout::parameters, context);
        const hsize_t count = hdf5::attribute_count(parameters.get(), context);
        for (hsize_t i = 0; i < count; ++i) {
            std::string key;
            const hdf5::OpenAttribute attribute = hdf5::open_attribute_by_index(parameters.get(), i, key, context);
            if (attribute.shape.kind != hdf5::Shape::Kind::scalar) context.fail(attribute.what + " is not a single value");
            result.parameters[hdf5::unescape_name(key)] = hdf5::read_strings(attribute, context).front();
        }
    }
    result.metrics = hdf5::read_metrics(group.get(), layout::metrics, context);
    if (options.samples && hdf5::hard_link_exists(group.get(), layout::samples, context))
        result.samples = hdf5::read_columns(group.get(), layout::samples, context);
    return result;
}

// A telemetry table's string attributes other than its units: what identifies the device.
std::map<std::string, std::string> read_device_attributes(hid_t telemetry, const std::string& name,
                                                          const ErrorContext& context) {
    const hdf5::Dataset dataset = hdf5::open_dataset(telemetry, name, context);
    std::map<std::string, std::string> attributes;
    const hsize_t count = hdf5::attribute_count(dataset.get(), context);
    for (hsize_t i = 0; i < count; ++i) {
        std::string key;
        const hdf5::OpenAttribute attribute = hdf5::open_attribute_by_index(dataset.get(), i, key, context);
        if (key == layout::units || attribute.type_class != H5T_STRING ||
            attribute.shape.kind != hdf5::Shape::Kind::scalar)
            continue;
        attributes[hdf5::unescape_name(key)] = hdf5::read_strings(attribute, context).front();
    }
    return attributes;
}

// The /stalled group: where an aborted rank stood. A malformed one is the trace's fault (it was
// written by the same program), so it fails the read like any other malformed member.
StalledAt read_stalled(hid_t root, const ErrorContext& context) {
    const hdf5::Group group = hdf5::open_group(root, layout::stalled, context);
    const nlohmann::json record = hdf5::read_json_group(group.get(), context);
    StalledAt stalled;
    try {
        stalled.activity.test = record.at(layout::stalled_test).get<std::string>();
        stalled.activity.phase = record.at(layout::stalled_phase).get<std::string>();
        if (const auto& waiting = record.at(layout::stalled_waiting_for); !waiting.is_null())
            stalled.activity.waiting_for = waiting.get<std::vector<int>>();
        stalled.noticed_by = record.at(layout::stalled_noticed_by).get<std::string>();
        stalled.late_s = record.at(layout::stalled_late_s).get<double>();
    } catch (const nlohmann::json::exception& error) {
        context.fail(fmt::format("group '{}' is malformed: {}", layout::stalled, error.what()));
    }
    return stalled;
}

Trace read_open_trace(hid_t file, const TraceReadOptions& options, const ErrorContext& context) {
    const hdf5::Group root(context.check(H5Gopen2(file, "/", H5P_DEFAULT), "H5Gopen2", "'/'"));
    Trace trace;
    trace.header = read_header(root.get(), context);
    const std::string status = hdf5::require_string(root.get(), layout::status, context);
    const std::optional<TraceStatus> parsed = trace_status_from_string(status);
    if (!parsed)
        context.fail(fmt::format("root attribute 'status' is '{}' (expected running, complete or aborted)", status));
    trace.status = *parsed;
    trace.end_utc = require_time(root.get(), layout::end_utc, context);

    if (options.config) trace.config_yaml = read_string_dataset(root.get(), layout::config, context);
    if (options.inventory) {
        const hdf5::Group inventory = hdf5::open_group(root.get(), layout::inventory, context);
        trace.inventory = hdf5::read_json_group(inventory.get(), context);
    }
    if (hdf5::hard_link_exists(root.get(), layout::stalled, context)) trace.stalled = read_stalled(root.get(), context);
    if (options.tests) {
        const hdf5::Group tests = hdf5::open_group(root.get(), layout::tests, context);
        for (const std::string& name : hdf5::hard_link_names(tests.get(), context))
            trace.tests.push_back(read_test(tests.get(), name, options, context));
    }
    if (options.telemetry) {
        const hdf5::Group telemetry = hdf5::open_group(root.get(), layout::telemetry, context);
        for (const std::string& name : hdf5::hard_link_names(telemetry.get(), context)) {
            const std::string table = hdf5::unescape_name(name);
            if (options.telemetry_table && !options.telemetry_table(table)) continue;
            trace.telemetry[table] = hdf5::read_columns(telemetry.get(), name, context);
            trace.telemetry_attributes[table] = read_device_attributes(telemetry.get(), name, context);
        }
    }
    if (options.events) trace.events = hdf5::read_events(root.get(), layout::events, context);
    return trace;
}

}  // namespace

Trace read_trace(const std::filesystem::path& path, const TraceReadOptions& options) {
    hdf5::silence_error_printing();
    const ErrorContext context(path.string());
    try {
        check_plain_file(path, context);
        const hdf5::File file = open_read_only(path, context);
        return read_open_trace(file.get(), options, context);
    } catch (const TraceError&) {
        throw;
    } catch (const std::bad_alloc&) {
        context.fail("too large to read into memory");
    } catch (const std::exception& error) {
        context.fail(error.what());  // still one line naming the file
    }
}

}  // namespace shakedown
