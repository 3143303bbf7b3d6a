#include "trace/trace_writer.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "trace/hdf5_io.hpp"
#include "trace/hdf5_threads.hpp"
#include "trace/json_hdf5.hpp"
#include "trace/trace_layout.hpp"
#include "trace/trace_tables.hpp"

#include <fmt/format.h>

#include <mutex>
#include <stdexcept>
#include <system_error>

namespace shakedown {

namespace layout = trace_layout;
using hdf5::ErrorContext;

struct TraceWriter::Impl {
    explicit Impl(const std::filesystem::path& trace_path)
        : path(trace_path), context(trace_path.string()) {}

    const std::filesystem::path path;
    const ErrorContext context;
    hdf5::File file;
    // Every HDF5 call of this writer happens under it; one for the process, since an HDF5 built
    // without thread safety may not be entered by two threads even on two files (hdf5_threads.hpp).
    std::timed_mutex& mutex = hdf5::writer_mutex();
    bool aborted = false;    // aborted is final: a later finish() keeps it

    // Takes the lock for one public operation (HDF5's error printing is per thread, and the
    // watchdog calls in from its own thread).
    std::unique_lock<std::timed_mutex> lock() {
        std::unique_lock guard(mutex);
        hdf5::silence_error_printing();
        return guard;
    }

    void flush() const {
        context.check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "H5Fflush", fmt::format("'{}'", path.string()));
    }

    hdf5::Group open_root_group(const char* name) const {
        return hdf5::open_group(file.get(), name, context);
    }

    void create(const TraceHeader& header, const std::string& config_yaml, const nlohmann::json& inventory);
    void write_times(hid_t object, double start_utc, double end_utc) const;
    void write_status(TraceStatus status, double end_utc);
    void write_test(const TestResult& result) const;
    void append_event(const Event& event) const;
    void write_stalled(const StalledAt& stalled) const;
};

namespace {

// Root attributes that change later keep one stored size from the start, so each update
// rewrites the attribute in place instead of deleting and recreating it.
constexpr std::size_t status_capacity = 16;    // "complete" and room to spare
constexpr std::size_t iso_time_capacity = 32;  // "2026-11-30T05:39:24.123Z"

hdf5::File create_exclusive(const std::filesystem::path& path) {
    const ErrorContext context(path.string());
    std::error_code ignored;
    const std::string refusal =
        fmt::format("trace file {} already exists; shakedown never overwrites a trace", path.string());
    if (std::filesystem::exists(path, ignored)) throw InputError(refusal);

    const hdf5::PropertyList access = hdf5::trace_file_access(context);
    // The 1.8 object formats: compact groups and creation-order indexes, readable by every
    // HDF5 since 1.8, and no 1.10 "file is open for writing" flag that a crash would leave
    // set (which would make the crashed rank's file unreadable without h5clear).
    context.check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_V18), "H5Pset_libver_bounds",
                  "the file access list");

    // H5F_ACC_EXCL makes the refusal atomic even when two writers race for one name.
    const hdf5::PropertyList create = hdf5::compact_file_creation(context);
    const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_EXCL, create.get(), access.get());
    if (id < 0) {
        if (std::filesystem::exists(path, ignored)) throw InputError(refusal);
        throw InputError(fmt::format("cannot create trace file {}: {}", path.string(), hdf5::innermost_error_message()));
    }
    return hdf5::File(id);
}

// A one-element 1-D dataset rather than a scalar one: chunked with the Fletcher-32 filter
// (which needs chunks), so damage to the text is an error rather than a changed config.
void write_string_dataset(hid_t parent, const char* name, const std::string& text, const ErrorContext& context) {
    const std::string what = fmt::format("'/{}'", name);
    const hdf5::Datatype type = hdf5::text_type_for(text, context);
    const hdf5::Dataspace space = hdf5::vector_space(1, context);
    const hdf5::PropertyList create(context.check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", what));
    const hsize_t one = 1;
    context.check(H5Pset_chunk(create.get(), 1, &one), "H5Pset_chunk", what);
    context.check(H5Pset_fletcher32(create.get()), "H5Pset_fletcher32", what);
    const hdf5::Dataset dataset(context.check(
        H5Dcreate2(parent, name, type.get(), space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT), "H5Dcreate2", what));
    std::string buffer = text;
    buffer.resize(H5Tget_size(type.get()), '\0');  // HDF5 reads the whole capacity
    context.check(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), "H5Dwrite", what);
}

}  // namespace

void TraceWriter::Impl::create(const TraceHeader& header, const std::string& config_yaml,
                               const nlohmann::json& inventory) {
    const hid_t root = file.get();
    hdf5::write_attribute(root, layout::schema_version, header.schema_version, context);
    hdf5::write_attribute(root, layout::shakedown_version, header.shakedown_version, context);
    hdf5::write_attribute(root, layout::run_id, header.run_id, context);
    if (!header.run_uuid.empty()) hdf5::write_attribute(root, layout::run_uuid, header.run_uuid, context);
    hdf5::write_attribute(root, layout::rank, std::int64_t{header.rank}, context);
    hdf5::write_attribute(root, layout::world_size, std::int64_t{header.world_size}, context);
    hdf5::write_attribute(root, layout::node, header.node, context);
    hdf5::write_attribute(root, layout::local_rank, std::int64_t{header.local_rank}, context);
    const auto& binding = header.binding;
    hdf5::write_attribute(root, layout::cpu_affinity, binding.cpu_affinity, context);
    hdf5::write_attribute(root, layout::gpu_ordinal, std::int64_t{binding.gpu_ordinal}, context);
    if (binding.cuda_visible_devices)
        hdf5::write_attribute(root, layout::cuda_visible_devices, *binding.cuda_visible_devices, context);
    for (const auto& [name, value] : binding.slurm) hdf5::write_attribute(root, name, value, context);
    write_times(root, header.start_utc, 0.0);
    write_status(TraceStatus::running, 0.0);

    write_string_dataset(root, layout::config, config_yaml, context);

    const hdf5::Group inventory_group = hdf5::create_group(root, layout::inventory, context);
    if (!inventory.is_null()) hdf5::write_json_members(inventory_group.get(), inventory, context);

    // Creation order tracked and indexed: the reader gives tests back in the order they ran.
    hdf5::create_group(root, layout::tests, context, true);
    hdf5::create_group(root, layout::telemetry, context);
    hdf5::create_events(root, layout::events, context);
    flush();
}

void TraceWriter::Impl::write_times(hid_t object, double start_utc, double end_utc) const {
    hdf5::write_attribute(object, layout::start_utc, start_utc, context);
    hdf5::write_attribute(object, layout::start_utc_iso, format_utc(start_utc), context);
    hdf5::write_attribute(object, layout::end_utc, end_utc, context);
    // Empty while a trace runs: an ISO text for 0 s would read like a real time (1970).
    hdf5::write_attribute(object, layout::end_utc_iso, end_utc > 0.0 ? format_utc(end_utc) : std::string(), context,
                          iso_time_capacity);
}

void TraceWriter::Impl::write_status(TraceStatus status, double end_utc) {
    if (aborted) status = TraceStatus::aborted;
    const hid_t root = file.get();
    hdf5::write_attribute(root, layout::status, to_string(status), context, status_capacity);
    hdf5::write_attribute(root, layout::end_utc, end_utc, context);
    hdf5::write_attribute(root, layout::end_utc_iso, end_utc > 0.0 ? format_utc(end_utc) : std::string(), context,
                          iso_time_capacity);
    if (status == TraceStatus::aborted) aborted = true;
}

void TraceWriter::Impl::write_test(const TestResult& result) const {
    const hdf5::Group tests = open_root_group(layout::tests);
    const std::string name = hdf5::escape_name(result.key);
    if (hdf5::hard_link_exists(tests.get(), name, context))
        context.fail(fmt::format("test '{}' is already in the trace", result.key));

    // Built as an anonymous group and linked into /tests only when complete: a crash in the
    // middle leaves an unreachable object, never a half-written test.
    const hdf5::PropertyList compact = hdf5::compact_group_creation(context);
    const hdf5::Group group(context.check(H5Gcreate_anon(file.get(), compact.get(), H5P_DEFAULT), "H5Gcreate_anon",
                                          fmt::format("the group of test '{}'", result.key)));
    hdf5::write_attribute(group.get(), layout::status, to_string(result.status), context);
    hdf5::write_attribute(group.get(), layout::reason, result.reason, context);
    if (const std::optional<Cause> cause = cause_of(result))
        hdf5::write_attribute(group.get(), layout::cause, to_string(*cause), context);
    write_times(group.get(), result.start_utc, result.end_utc);
    if (result.measured) {
        hdf5::write_attribute(group.get(), layout::measured_start_utc, result.measured->start_utc, context);
        hdf5::write_attribute(group.get(), layout::measured_end_utc, result.measured->end_utc, context);
    }

    const hdf5::Group parameters = hdf5::create_group(group.get(), layout::parameters, context);
    for (const auto& [key, value] : result.parameters)
        hdf5::write_attribute(parameters.get(), hdf5::escape_name(key), value, context);

    hdf5::write_metrics(group.get(), layout::metrics, result.metrics, context);
    if (!result.samples.columns().empty()) hdf5::write_columns(group.get(), layout::samples, result.samples, context);

    context.check(H5Olink(group.get(), tests.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), "H5Olink",
                  fmt::format("'/tests/{}'", name));
}

void TraceWriter::Impl::append_event(const Event& event) const {
    const hdf5::Dataset events = hdf5::open_dataset(file.get(), layout::events, context);
    hdf5::append_event(events.get(), event, context);
}

void TraceWriter::Impl::write_stalled(const StalledAt& stalled) const {
    if (hdf5::hard_link_exists(file.get(), layout::stalled, context)) return;  // the first ending says it
    const hdf5::Group group = hdf5::create_group(file.get(), layout::stalled, context);
    const nlohmann::json record = {{layout::stalled_test, stalled.activity.test},
                                   {layout::stalled_phase, stalled.activity.phase},
                                   {layout::stalled_waiting_for, stalled.activity.waiting_for},
                                   {layout::stalled_noticed_by, stalled.noticed_by},
                                   {layout::stalled_late_s, stalled.late_s}};
    hdf5::write_json_members(group.get(), record, context);
}

TraceWriter::TraceWriter(const std::filesystem::path& path, const TraceHeader& header, const std::string& config_yaml,
                         const nlohmann::json& inventory)
    : impl_(std::make_unique<Impl>(path)) {
    if (!inventory.is_null() && !inventory.is_object())
        throw std::invalid_argument("the inventory written into a trace must be a JSON object");
    const auto guard = impl_->lock();
    impl_->file = create_exclusive(path);
    try {
        impl_->create(header, config_yaml, inventory);
    } catch (...) {
        // The file is ours (created exclusively a moment ago) and holds nothing of value:
        // leave no half-made trace behind.
        impl_->file.reset();
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
        throw;
    }
}

TraceWriter::~TraceWriter() {
    if (!impl_) return;
    const std::lock_guard guard(impl_->mutex);  // let an operation of another thread finish
    impl_->file.reset();
}

void TraceWriter::write_test(const TestResult& result) {
    const auto guard = impl_->lock();
    impl_->write_test(result);
    impl_->flush();
}

void TraceWriter::append_telemetry(const std::string& device, const SampleTable& samples,
                                   const std::map<std::string, std::string>& attributes) {
    if (attributes.contains(layout::units))
        throw TraceError(fmt::format("telemetry attribute 'units' of '{}' is the table's own", device));
    if (samples.columns().empty() && samples.empty()) return;  // nothing sampled, nothing to write
    const auto guard = impl_->lock();
    const hdf5::Group telemetry = impl_->open_root_group(layout::telemetry);
    const std::string name = hdf5::escape_name(device);
    if (hdf5::hard_link_exists(telemetry.get(), name, impl_->context)) {
        const hdf5::Dataset dataset = hdf5::open_dataset(telemetry.get(), name, impl_->context);
        hdf5::append_columns(dataset.get(), samples, impl_->context);
    } else {
        hdf5::create_extendable_columns(telemetry.get(), name, samples, impl_->context);
        const hdf5::Dataset dataset = hdf5::open_dataset(telemetry.get(), name, impl_->context);
        for (const auto& [key, value] : attributes)
            hdf5::write_attribute(dataset.get(), hdf5::escape_name(key), value, impl_->context);
    }
    impl_->flush();
}

void TraceWriter::append_event(const Event& event) {
    const auto guard = impl_->lock();
    impl_->append_event(event);
    impl_->flush();
}

void TraceWriter::finish(TraceStatus status, double end_utc) {
    const auto guard = impl_->lock();
    impl_->write_status(status, end_utc);
    impl_->flush();
}

bool TraceWriter::try_abort(const Event& event, double end_utc, std::chrono::milliseconds wait,
                            const std::optional<StalledAt>& stalled) {
    std::unique_lock guard(impl_->mutex, std::defer_lock);
    if (!guard.try_lock_for(wait)) return false;
    hdf5::silence_error_printing();
    impl_->append_event(event);
    if (stalled) impl_->write_stalled(*stalled);
    impl_->write_status(TraceStatus::aborted, end_utc);
    impl_->flush();
    return true;
}

const std::filesystem::path& TraceWriter::path() const { return impl_->path; }

}  // namespace shakedown
