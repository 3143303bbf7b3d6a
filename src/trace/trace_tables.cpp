#include "trace/trace_tables.hpp"

#include "trace/hdf5_io.hpp"
#include "trace/hdf5_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <stdexcept>

namespace shakedown::hdf5 {
namespace {

// A reader refuses tables whose rows would need more memory than this: a corrupt extent
// must not become a huge allocation.
constexpr std::size_t max_table_bytes = std::size_t{1} << 30;
constexpr std::size_t max_columns = 4096;

// Event texts longer than this are cut (at a UTF-8 boundary): the events table is
// extendable, so its text field has one size fixed when the trace is created.
constexpr std::size_t event_text_capacity = 1024;
constexpr std::size_t severity_capacity = 8;  // "warning" and its NUL

// Field positions, in the order the layouts below add them.
enum MetricField : std::size_t { metric_name, metric_unit, metric_value, metric_nominal, metric_better };
enum EventField : std::size_t { event_t, event_severity, event_text };

constexpr std::array<FieldSpec, 5> metric_fields{{{"name", FieldKind::text},
                                                  {"unit", FieldKind::text},
                                                  {"value", FieldKind::number},
                                                  {"nominal", FieldKind::number},
                                                  {"better", FieldKind::text}}};
constexpr std::array<FieldSpec, 3> event_fields{
    {{"t", FieldKind::number}, {"severity", FieldKind::text}, {"text", FieldKind::text}}};

RecordLayout event_layout() {
    RecordLayout layout;
    layout.add_number("t");
    layout.add_text("severity", severity_capacity);
    layout.add_text("text", event_text_capacity);
    return layout;
}

// One float64 field per column, packed: a row in memory is double[columns].
Datatype columns_type(const std::vector<SampleTable::Column>& columns, const ErrorContext& context) {
    if (columns.empty()) throw std::invalid_argument("a sample table needs at least one column");
    std::set<std::string_view> seen;
    for (const auto& column : columns) {
        if (column.name.empty()) throw std::invalid_argument("a sample table column has no name");
        if (!seen.insert(column.name).second)
            throw std::invalid_argument(fmt::format("sample table column '{}' appears twice", column.name));
    }
    Datatype type(context.check(H5Tcreate(H5T_COMPOUND, sizeof(double) * columns.size()), "H5Tcreate", "a sample table type"));
    for (std::size_t i = 0; i < columns.size(); ++i)
        context.check(H5Tinsert(type.get(), columns[i].name.c_str(), i * sizeof(double), H5T_NATIVE_DOUBLE), "H5Tinsert",
                      fmt::format("column '{}'", columns[i].name));
    return type;
}

std::vector<double> flat_rows(const SampleTable& table) {
    std::vector<double> values;
    values.reserve(table.size() * table.columns().size());
    for (const auto& row : table.rows()) values.insert(values.end(), row.begin(), row.end());
    return values;
}

std::vector<std::string> units_of(const SampleTable& table) {
    std::vector<std::string> units;
    for (const auto& column : table.columns()) units.push_back(column.unit);
    return units;
}

std::string describe(hid_t group, const std::string& name) {
    return fmt::format("'{}/{}'", object_name(group) == "/" ? "" : object_name(group), name);
}

// Every table is chunked with the Fletcher-32 checksum filter: HDF5 checksums the file's
// metadata (1.8 formats) but not raw data, and a damaged metric must be an error, not a
// wrong figure. `extendable_chunk_rows` > 0 makes the table extendable (appended to during
// the run); otherwise its size is fixed and its chunks hold up to fixed_chunk_rows rows.
Dataset create_table(hid_t group, const std::string& name, hid_t type, hsize_t rows, hsize_t extendable_chunk_rows,
                     const ErrorContext& context) {
    constexpr hsize_t fixed_chunk_rows = 65536;
    const std::string what = describe(group, name);
    const PropertyList create_plist(context.check(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate", what));
    const bool extendable = extendable_chunk_rows > 0;
    const hsize_t chunk_rows = extendable ? extendable_chunk_rows : std::clamp<hsize_t>(rows, 1, fixed_chunk_rows);
    context.check(H5Pset_chunk(create_plist.get(), 1, &chunk_rows), "H5Pset_chunk", what);
    context.check(H5Pset_fletcher32(create_plist.get()), "H5Pset_fletcher32", what);
    const Dataspace space = extendable ? extendable_vector_space(rows, context) : vector_space(rows, context);
    return Dataset(context.check(
        H5Dcreate2(group, name.c_str(), type, space.get(), H5P_DEFAULT, create_plist.get(), H5P_DEFAULT), "H5Dcreate2",
        what));
}

void append_records(hid_t dataset, hid_t memory_type, hsize_t count, const void* records, const ErrorContext& context) {
    if (count == 0) return;
    const std::string what = fmt::format("'{}'", object_name(dataset));
    hsize_t old_rows = 0;
    {
        const Dataspace space(context.check(H5Dget_space(dataset), "H5Dget_space", what));
        old_rows = shape_of(space.get(), what, context).count;
    }
    const hsize_t new_rows = old_rows + count;
    context.check(H5Dset_extent(dataset, &new_rows), "H5Dset_extent", what);
    const Dataspace file_space(context.check(H5Dget_space(dataset), "H5Dget_space", what));
    context.check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &old_rows, nullptr, &count, nullptr),
                  "H5Sselect_hyperslab", what);
    const Dataspace memory_space = vector_space(count, context);
    context.check(H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, records), "H5Dwrite",
                  what);
}

// --- reading ----------------------------------------------------------------------------

struct StoredTable {
    Dataset dataset;
    Datatype type;
    Dataspace space;
    hsize_t rows = 0;
    std::string what;
};

// Opens a 1-D compound table and checks its size before anything is allocated.
StoredTable open_table(hid_t group, const std::string& name, std::size_t record_size, const ErrorContext& context) {
    StoredTable table;
    table.what = describe(group, name);
    table.dataset = open_dataset(group, name, context);
    table.type = Datatype(context.check(H5Dget_type(table.dataset.get()), "H5Dget_type", table.what));
    if (H5Tget_class(table.type.get()) != H5T_COMPOUND) context.fail(table.what + " is not a table (compound dataset)");
    table.space = Dataspace(context.check(H5Dget_space(table.dataset.get()), "H5Dget_space", table.what));
    const Shape shape = shape_of(table.space.get(), table.what, context);
    if (shape.kind != Shape::Kind::vector) context.fail(table.what + " is not a 1-D table");
    if (shape.count > max_table_bytes / record_size)
        context.fail(fmt::format("{} claims {} rows, too many to be a trace table", table.what, shape.count));
    table.rows = shape.count;
    require_all_chunks(table.dataset.get(), table.rows, table.what, context);
    return table;
}

// Reads every row of `table` as packed records of `layout`.
std::vector<char> read_records(const StoredTable& table, const RecordLayout& layout, const ErrorContext& context) {
    if (table.rows > max_table_bytes / layout.size())
        context.fail(fmt::format("{} claims {} rows, too many to be a trace table", table.what, table.rows));
    std::vector<char> bytes(table.rows * layout.size());
    if (!bytes.empty()) {
        const Datatype memory_type = layout.datatype(context);
        const PropertyList transfer = transfer_for(table.type.get(), layout.size(), table.rows, context);
        context.check(H5Dread(table.dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, transfer.get(), bytes.data()),
                      "H5Dread", table.what);
    }
    return bytes;
}

std::span<const char> row_of(const std::vector<char>& bytes, const RecordLayout& layout, hsize_t row) {
    return {bytes.data() + row * layout.size(), layout.size()};
}

}  // namespace

// --- metrics ----------------------------------------------------------------------------

void write_metrics(hid_t group, const std::string& name, const std::vector<Metric>& metrics,
                   const ErrorContext& context) {
    std::size_t name_capacity = 1, unit_capacity = 1, better_capacity = 1;
    for (const Metric& metric : metrics) {
        name_capacity = std::max(name_capacity, metric.name.size() + 1);
        unit_capacity = std::max(unit_capacity, metric.unit.size() + 1);
        better_capacity = std::max(better_capacity, to_string(metric.better).size() + 1);
    }
    RecordLayout layout;
    layout.add_text("name", name_capacity);
    layout.add_text("unit", unit_capacity);
    layout.add_number("value");
    layout.add_number("nominal");
    layout.add_text("better", better_capacity);

    std::vector<char> bytes(metrics.size() * layout.size());
    for (std::size_t row = 0; row < metrics.size(); ++row) {
        const Metric& metric = metrics[row];
        const std::span<char> record(bytes.data() + row * layout.size(), layout.size());
        layout.set_text(record, metric_name, metric.name);
        layout.set_text(record, metric_unit, metric.unit);
        layout.set_number(record, metric_value, metric.value);
        layout.set_number(record, metric_nominal, metric.nominal.value_or(std::numeric_limits<double>::quiet_NaN()));
        layout.set_text(record, metric_better, to_string(metric.better));
    }
    const Datatype type = layout.datatype(context);
    const Dataset dataset = create_table(group, name, type.get(), metrics.size(), 0, context);
    if (!bytes.empty())
        context.check(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), "H5Dwrite",
                      describe(group, name));
}

std::vector<Metric> read_metrics(hid_t group, const std::string& name, const ErrorContext& context) {
    const StoredTable table = open_table(group, name, 1, context);
    const RecordLayout layout = stored_layout(table.type.get(), metric_fields, table.what, context);
    const std::vector<char> bytes = read_records(table, layout, context);

    std::vector<Metric> metrics;
    metrics.reserve(table.rows);
    for (hsize_t row = 0; row < table.rows; ++row) {
        const std::span<const char> record = row_of(bytes, layout, row);
        Metric metric;
        metric.name = layout.text(record, metric_name);
        metric.unit = layout.text(record, metric_unit);
        metric.value = layout.number(record, metric_value);
        const double nominal = layout.number(record, metric_nominal);
        if (!std::isnan(nominal)) metric.nominal = nominal;
        const std::string better = layout.text(record, metric_better);
        const std::optional<Better> parsed = better_from_string(better);
        if (!parsed)
            context.fail(fmt::format("{} metric '{}' has better = '{}' (expected higher or lower)", table.what,
                                     metric.name, better));
        metric.better = *parsed;
        metrics.push_back(std::move(metric));
    }
    return metrics;
}

// --- column tables ----------------------------------------------------------------------

void write_columns(hid_t group, const std::string& name, const SampleTable& table, const ErrorContext& context) {
    const Datatype type = columns_type(table.columns(), context);
    const Dataset dataset = create_table(group, name, type.get(), table.size(), 0, context);
    const std::vector<double> values = flat_rows(table);
    if (!values.empty())
        context.check(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "H5Dwrite",
                      describe(group, name));
    write_attribute(dataset.get(), "units", units_of(table), context);
}

void create_extendable_columns(hid_t group, const std::string& name, const SampleTable& table,
                               const ErrorContext& context) {
    const Datatype type = columns_type(table.columns(), context);
    const Dataset dataset = create_table(group, name, type.get(), 0, telemetry_chunk_rows, context);
    write_attribute(dataset.get(), "units", units_of(table), context);
    append_columns(dataset.get(), table, context);
}

void append_columns(hid_t dataset, const SampleTable& table, const ErrorContext& context) {
    const std::string what = fmt::format("'{}'", object_name(dataset));
    const Datatype stored(context.check(H5Dget_type(dataset), "H5Dget_type", what));
    const int stored_count = H5Tget_nmembers(stored.get());
    bool same = stored_count == static_cast<int>(table.columns().size());
    for (int i = 0; same && i < stored_count; ++i) {
        char* stored_name = H5Tget_member_name(stored.get(), static_cast<unsigned>(i));
        same = stored_name != nullptr && table.columns()[static_cast<std::size_t>(i)].name == stored_name;
        H5free_memory(stored_name);
    }
    if (!same) context.fail(what + " was started with other columns than the rows now appended");
    const Datatype type = columns_type(table.columns(), context);
    const std::vector<double> values = flat_rows(table);
    append_records(dataset, type.get(), table.size(), values.data(), context);
}

SampleTable read_columns(hid_t group, const std::string& name, const ErrorContext& context) {
    StoredTable probe = open_table(group, name, sizeof(double), context);
    const int field_count = H5Tget_nmembers(probe.type.get());
    if (field_count <= 0 || static_cast<std::size_t>(field_count) > max_columns)
        context.fail(fmt::format("{} has {} columns", probe.what, field_count));
    const auto columns_count = static_cast<std::size_t>(field_count);
    if (probe.rows > max_table_bytes / (sizeof(double) * columns_count))
        context.fail(fmt::format("{} claims {} rows, too many to be a trace table", probe.what, probe.rows));

    std::vector<std::string> units;
    if (std::optional<OpenAttribute> attribute = open_attribute(probe.dataset.get(), "units", context))
        units = read_strings(*attribute, context);
    else
        context.fail(probe.what + " has no 'units' attribute");
    if (units.size() != columns_count)
        context.fail(fmt::format("{} has {} units for {} columns", probe.what, units.size(), columns_count));

    std::vector<SampleTable::Column> columns;
    for (unsigned i = 0; i < columns_count; ++i) {
        char* stored_name = H5Tget_member_name(probe.type.get(), i);
        if (stored_name == nullptr) context.fail_call("H5Tget_member_name", probe.what);
        std::string column_name = stored_name;
        H5free_memory(stored_name);
        const H5T_class_t member_class = H5Tget_member_class(probe.type.get(), i);
        if (member_class != H5T_FLOAT && member_class != H5T_INTEGER)
            context.fail(fmt::format("{} column '{}' is not a number", probe.what, column_name));
        columns.push_back({std::move(column_name), units[i]});
    }
    std::vector<double> values(probe.rows * columns_count);
    if (!values.empty()) {
        const Datatype memory_type = columns_type(columns, context);
        const PropertyList transfer =
            transfer_for(probe.type.get(), sizeof(double) * columns_count, probe.rows, context);
        context.check(H5Dread(probe.dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, transfer.get(), values.data()),
                      "H5Dread", probe.what);
    }
    SampleTable table(std::move(columns));
    for (hsize_t row = 0; row < probe.rows; ++row) {
        const auto first = values.begin() + static_cast<std::ptrdiff_t>(row * columns_count);
        table.add_row(std::vector<double>(first, first + static_cast<std::ptrdiff_t>(columns_count)));
    }
    return table;
}

// --- events -----------------------------------------------------------------------------

void create_events(hid_t group, const std::string& name, const ErrorContext& context) {
    const Datatype type = event_layout().datatype(context);
    create_table(group, name, type.get(), 0, event_chunk_rows, context);
}

void append_event(hid_t dataset, const Event& event, const ErrorContext& context) {
    const RecordLayout layout = event_layout();
    std::vector<char> record(layout.size());
    layout.set_number(record, event_t, event.t);
    layout.set_text(record, event_severity, to_string(event.severity));
    layout.set_text(record, event_text, event.text);
    const Datatype type = layout.datatype(context);
    append_records(dataset, type.get(), 1, record.data(), context);
}

std::vector<Event> read_events(hid_t group, const std::string& name, const ErrorContext& context) {
    const StoredTable table = open_table(group, name, 1, context);
    const RecordLayout layout = stored_layout(table.type.get(), event_fields, table.what, context);
    const std::vector<char> bytes = read_records(table, layout, context);

    std::vector<Event> events;
    events.reserve(table.rows);
    for (hsize_t row = 0; row < table.rows; ++row) {
        const std::span<const char> record = row_of(bytes, layout, row);
        const std::string severity = layout.text(record, event_severity);
        const std::optional<Severity> parsed = severity_from_string(severity);
        if (!parsed)
            context.fail(fmt::format("{} has an event with severity '{}' (expected info, warning or error)",
                                     table.what, severity));
        events.push_back({layout.number(record, event_t), *parsed, layout.text(record, event_text)});
    }
    return events;
}

}  // namespace shakedown::hdf5
