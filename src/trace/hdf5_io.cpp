#include "trace/hdf5_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace shakedown::hdf5 {
namespace {

// Names longer than this are not something the trace writes; refuse them before allocating.
constexpr std::size_t max_name_length = 4096;
// Fixed-length strings: bytes per attribute at most.
constexpr std::size_t max_fixed_string_bytes = std::size_t{1} << 26;

std::string in_quotes(std::string_view text) { return fmt::format("'{}'", text); }

template <typename Value>
std::vector<Value> read_fixed(const OpenAttribute& attribute, hid_t memory_type, const ErrorContext& context) {
    if (attribute.shape.kind == Shape::Kind::null) context.fail(attribute.what + " holds no value");
    std::vector<Value> values(attribute.shape.count);
    if (!values.empty())
        context.check(H5Aread(attribute.attribute.get(), memory_type, values.data()), "H5Aread", attribute.what);
    return values;
}

}  // namespace

// --- datatypes --------------------------------------------------------------------------

Datatype text_type(std::size_t capacity, const ErrorContext& context) {
    Datatype type(context.check(H5Tcopy(H5T_C_S1), "H5Tcopy", "a string type"));
    context.check(H5Tset_size(type.get(), std::max<std::size_t>(capacity, 1)), "H5Tset_size", "a string type");
    context.check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "H5Tset_strpad", "a string type");
    context.check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset", "a string type");
    return type;
}

Datatype text_type_for(std::string_view text, const ErrorContext& context, std::size_t reserve) {
    return text_type(std::max(text.size() + 1, reserve), context);
}

Datatype bool_type(const ErrorContext& context) {
    Datatype type(context.check(H5Tenum_create(H5T_NATIVE_SCHAR), "H5Tenum_create", "the bool type"));
    const signed char false_value = 0;
    const signed char true_value = 1;
    context.check(H5Tenum_insert(type.get(), "FALSE", &false_value), "H5Tenum_insert", "the bool type");
    context.check(H5Tenum_insert(type.get(), "TRUE", &true_value), "H5Tenum_insert", "the bool type");
    return type;
}

// --- files ------------------------------------------------------------------------------

PropertyList trace_file_access(const ErrorContext& context) {
    PropertyList access(context.check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate", "the file access list"));
    context.check(H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG), "H5Pset_fclose_degree", "the file access list");
#if H5_VERSION_GE(1, 10, 7)
    context.check(H5Pset_file_locking(access.get(), false, true), "H5Pset_file_locking", "the file access list");
#endif
    return access;
}

namespace {

// The largest counts HDF5 accepts for compact storage.
constexpr unsigned max_compact_links = 65535;
constexpr unsigned max_compact_attributes = 65535;

void keep_compact(hid_t create_plist, const ErrorContext& context) {
    context.check(H5Pset_link_phase_change(create_plist, max_compact_links, max_compact_links),
                  "H5Pset_link_phase_change", "a group creation list");
    context.check(H5Pset_attr_phase_change(create_plist, max_compact_attributes, max_compact_attributes),
                  "H5Pset_attr_phase_change", "a group creation list");
}

}  // namespace

PropertyList compact_group_creation(const ErrorContext& context, bool track_creation_order) {
    PropertyList create(context.check(H5Pcreate(H5P_GROUP_CREATE), "H5Pcreate", "a group creation list"));
    keep_compact(create.get(), context);
    if (track_creation_order)
        context.check(H5Pset_link_creation_order(create.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
                      "H5Pset_link_creation_order", "a group creation list");
    return create;
}

PropertyList compact_file_creation(const ErrorContext& context) {
    PropertyList create(context.check(H5Pcreate(H5P_FILE_CREATE), "H5Pcreate", "the file creation list"));
    keep_compact(create.get(), context);
    return create;
}

// --- dataspaces -------------------------------------------------------------------------

Dataspace scalar_space(const ErrorContext& context) {
    return Dataspace(context.check(H5Screate(H5S_SCALAR), "H5Screate", "a scalar dataspace"));
}

Dataspace null_space(const ErrorContext& context) {
    return Dataspace(context.check(H5Screate(H5S_NULL), "H5Screate", "a null dataspace"));
}

Dataspace vector_space(hsize_t count, const ErrorContext& context) {
    return Dataspace(context.check(H5Screate_simple(1, &count, nullptr), "H5Screate_simple", "a vector dataspace"));
}

Dataspace extendable_vector_space(hsize_t count, const ErrorContext& context) {
    const hsize_t unlimited = H5S_UNLIMITED;
    return Dataspace(
        context.check(H5Screate_simple(1, &count, &unlimited), "H5Screate_simple", "an extendable dataspace"));
}

Shape shape_of(hid_t space, std::string_view what, const ErrorContext& context) {
    const H5S_class_t space_class = H5Sget_simple_extent_type(space);
    if (space_class == H5S_NULL) return {Shape::Kind::null, 0};
    if (space_class == H5S_SCALAR) return {Shape::Kind::scalar, 1};
    if (space_class != H5S_SIMPLE) context.fail(fmt::format("{} has an unreadable dataspace", what));
    const int rank = context.check(H5Sget_simple_extent_ndims(space), "H5Sget_simple_extent_ndims", what);
    if (rank == 0) return {Shape::Kind::scalar, 1};
    if (rank != 1) context.fail(fmt::format("{} has {} dimensions where 1 is expected", what, rank));
    hsize_t count = 0;
    context.check(H5Sget_simple_extent_dims(space, &count, nullptr), "H5Sget_simple_extent_dims", what);
    if (count > max_elements)
        context.fail(fmt::format("{} claims {} elements (more than {} is not a trace)", what, count, max_elements));
    return {Shape::Kind::vector, count};
}

std::string object_name(hid_t object) {
    const ssize_t length = H5Iget_name(object, nullptr, 0);
    if (length <= 0 || static_cast<std::size_t>(length) > max_name_length) return "?";
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    if (H5Iget_name(object, name.data(), name.size()) < 0) return "?";
    name.resize(static_cast<std::size_t>(length));
    return name;
}

// --- attributes: writing ----------------------------------------------------------------

void put_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t space, hid_t memory_type,
                   const void* data, const ErrorContext& context) {
    const std::string what = fmt::format("attribute '{}' of '{}'", name, object_name(object));
    Attribute attribute;
    if (context.check(H5Aexists(object, name.c_str()), "H5Aexists", what) > 0) {
        attribute = Attribute(context.check(H5Aopen(object, name.c_str(), H5P_DEFAULT), "H5Aopen", what));
        const Datatype stored_type(context.check(H5Aget_type(attribute.get()), "H5Aget_type", what));
        const Dataspace stored_space(context.check(H5Aget_space(attribute.get()), "H5Aget_space", what));
        const bool same = H5Tequal(stored_type.get(), file_type) > 0 && H5Sextent_equal(stored_space.get(), space) > 0;
        if (!same) {
            attribute.reset();
            context.check(H5Adelete(object, name.c_str()), "H5Adelete", what);
        }
    }
    if (!attribute.valid())
        attribute = Attribute(context.check(
            H5Acreate2(object, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT), "H5Acreate2", what));
    const hssize_t count = H5Sget_simple_extent_npoints(space);
    if (data != nullptr && count > 0)
        context.check(H5Awrite(attribute.get(), memory_type, data), "H5Awrite", what);
}

void write_attribute(hid_t object, const std::string& name, std::string_view value, const ErrorContext& context,
                     std::size_t reserve) {
    const Datatype type = text_type_for(value, context, reserve);
    // The buffer holds the whole capacity: HDF5 reads that many bytes from it.
    std::string buffer(value);
    buffer.resize(H5Tget_size(type.get()), '\0');
    const Dataspace space = scalar_space(context);
    put_attribute(object, name, type.get(), space.get(), type.get(), buffer.data(), context);
}

void write_attribute(hid_t object, const std::string& name, double value, const ErrorContext& context) {
    const Dataspace space = scalar_space(context);
    put_attribute(object, name, H5T_IEEE_F64LE, space.get(), H5T_NATIVE_DOUBLE, &value, context);
}

void write_attribute(hid_t object, const std::string& name, std::int64_t value, const ErrorContext& context) {
    const Dataspace space = scalar_space(context);
    put_attribute(object, name, H5T_STD_I64LE, space.get(), H5T_NATIVE_INT64, &value, context);
}

void write_attribute(hid_t object, const std::string& name, const std::vector<std::string>& values,
                     const ErrorContext& context) {
    std::size_t capacity = 1;
    for (const auto& value : values) capacity = std::max(capacity, value.size() + 1);
    std::string buffer(capacity * values.size(), '\0');
    for (std::size_t i = 0; i < values.size(); ++i) buffer.replace(i * capacity, values[i].size(), values[i]);
    const Datatype type = text_type(capacity, context);
    const Dataspace space = vector_space(values.size(), context);
    put_attribute(object, name, type.get(), space.get(), type.get(), buffer.data(), context);
}

// --- attributes: reading ----------------------------------------------------------------

hsize_t attribute_count(hid_t object, const ErrorContext& context) {
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t info{};
    context.check(H5Oget_info3(object, &info, H5O_INFO_NUM_ATTRS), "H5Oget_info3", in_quotes(object_name(object)));
#else
    H5O_info_t info{};
    context.check(H5Oget_info2(object, &info, H5O_INFO_NUM_ATTRS), "H5Oget_info2", in_quotes(object_name(object)));
#endif
    if (info.num_attrs > max_elements)
        context.fail(fmt::format("'{}' claims {} attributes", object_name(object), info.num_attrs));
    return info.num_attrs;
}

namespace {

OpenAttribute describe(Attribute attribute, std::string what, const ErrorContext& context) {
    OpenAttribute open;
    open.what = std::move(what);
    open.type = Datatype(context.check(H5Aget_type(attribute.get()), "H5Aget_type", open.what));
    open.space = Dataspace(context.check(H5Aget_space(attribute.get()), "H5Aget_space", open.what));
    open.type_class = H5Tget_class(open.type.get());
    if (open.type_class == H5T_NO_CLASS) context.fail_call("H5Tget_class", open.what);
    open.shape = shape_of(open.space.get(), open.what, context);
    open.attribute = std::move(attribute);
    return open;
}

}  // namespace

std::optional<OpenAttribute> open_attribute(hid_t object, const std::string& name, const ErrorContext& context) {
    std::string what = fmt::format("attribute '{}' of '{}'", name, object_name(object));
    if (context.check(H5Aexists(object, name.c_str()), "H5Aexists", what) <= 0) return std::nullopt;
    Attribute attribute(context.check(H5Aopen(object, name.c_str(), H5P_DEFAULT), "H5Aopen", what));
    return describe(std::move(attribute), std::move(what), context);
}

OpenAttribute open_attribute_by_index(hid_t object, hsize_t index, std::string& name, const ErrorContext& context) {
    const std::string where = in_quotes(object_name(object));
    const ssize_t length = context.check(
        H5Aget_name_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, index, nullptr, 0, H5P_DEFAULT),
        "H5Aget_name_by_idx", where);
    if (static_cast<std::size_t>(length) > max_name_length)
        context.fail(fmt::format("an attribute of {} has a {}-byte name", where, length));
    name.assign(static_cast<std::size_t>(length) + 1, '\0');
    context.check(H5Aget_name_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, index, name.data(), name.size(),
                                     H5P_DEFAULT),
                  "H5Aget_name_by_idx", where);
    name.resize(std::strlen(name.c_str()));
    std::string what = fmt::format("attribute '{}' of {}", name, where);
    Attribute attribute(context.check(
        H5Aopen_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, index, H5P_DEFAULT, H5P_DEFAULT), "H5Aopen_by_idx",
        what));
    return describe(std::move(attribute), std::move(what), context);
}

std::vector<std::string> read_strings(const OpenAttribute& attribute, const ErrorContext& context) {
    if (attribute.type_class != H5T_STRING) context.fail(attribute.what + " is not a string");
    if (attribute.shape.kind == Shape::Kind::null) context.fail(attribute.what + " holds no value");
    std::vector<std::string> values;
    if (attribute.shape.count == 0) return values;
    values.reserve(attribute.shape.count);

    // Read in the file's character set: HDF5 does not convert between ASCII and UTF-8.
    const H5T_cset_t charset = H5Tget_cset(attribute.type.get());
    if (charset < 0) context.fail_call("H5Tget_cset", attribute.what);
    const htri_t variable = context.check(H5Tis_variable_str(attribute.type.get()), "H5Tis_variable_str", attribute.what);
    if (variable > 0) context.fail(attribute.what + " is a variable-length string, which a trace never holds");
    const std::size_t size = H5Tget_size(attribute.type.get());
    if (size == 0 || size > max_text_bytes || size > max_fixed_string_bytes / attribute.shape.count)
        context.fail(fmt::format("{} has an implausible string size {}", attribute.what, size));
    Datatype memory_type(context.check(H5Tcopy(H5T_C_S1), "H5Tcopy", attribute.what));
    context.check(H5Tset_size(memory_type.get(), size), "H5Tset_size", attribute.what);
    context.check(H5Tset_strpad(memory_type.get(), H5T_STR_NULLPAD), "H5Tset_strpad", attribute.what);
    context.check(H5Tset_cset(memory_type.get(), charset), "H5Tset_cset", attribute.what);
    std::vector<char> bytes(size * attribute.shape.count, '\0');
    context.check(H5Aread(attribute.attribute.get(), memory_type.get(), bytes.data()), "H5Aread", attribute.what);
    for (hsize_t i = 0; i < attribute.shape.count; ++i) {
        const char* start = bytes.data() + i * size;
        values.emplace_back(start, ::strnlen(start, size));
    }
    return values;
}

std::vector<double> read_doubles(const OpenAttribute& attribute, const ErrorContext& context) {
    if (attribute.type_class != H5T_FLOAT && attribute.type_class != H5T_INTEGER)
        context.fail(attribute.what + " is not a number");
    return read_fixed<double>(attribute, H5T_NATIVE_DOUBLE, context);
}

std::vector<long long> read_signed(const OpenAttribute& attribute, const ErrorContext& context) {
    if (attribute.type_class != H5T_INTEGER) context.fail(attribute.what + " is not an integer");
    return read_fixed<long long>(attribute, H5T_NATIVE_LLONG, context);
}

std::vector<unsigned long long> read_unsigned(const OpenAttribute& attribute, const ErrorContext& context) {
    if (attribute.type_class != H5T_INTEGER) context.fail(attribute.what + " is not an integer");
    return read_fixed<unsigned long long>(attribute, H5T_NATIVE_ULLONG, context);
}

std::vector<bool> read_bools(const OpenAttribute& attribute, const ErrorContext& context) {
    if (attribute.type_class != H5T_ENUM) context.fail(attribute.what + " is not a FALSE/TRUE enum");
    const Datatype memory_type = bool_type(context);
    const std::vector<signed char> raw = read_fixed<signed char>(attribute, memory_type.get(), context);
    return {raw.begin(), raw.end()};
}

namespace {

OpenAttribute require_scalar(hid_t object, const std::string& name, const ErrorContext& context) {
    std::optional<OpenAttribute> attribute = open_attribute(object, name, context);
    if (!attribute) context.fail(fmt::format("attribute '{}' of '{}' is missing", name, object_name(object)));
    if (attribute->shape.kind != Shape::Kind::scalar) context.fail(attribute->what + " is not a single value");
    return std::move(*attribute);
}

}  // namespace

std::string require_string(hid_t object, const std::string& name, const ErrorContext& context) {
    return read_strings(require_scalar(object, name, context), context).front();
}

double require_double(hid_t object, const std::string& name, const ErrorContext& context) {
    return read_doubles(require_scalar(object, name, context), context).front();
}

long long require_integer(hid_t object, const std::string& name, const ErrorContext& context) {
    return read_signed(require_scalar(object, name, context), context).front();
}

// --- names ------------------------------------------------------------------------------

std::string escape_name(std::string_view name) {
    if (name.empty()) return "%";
    std::string escaped;
    escaped.reserve(name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '%' || c == '/' || c == '\0' || (i == 0 && c == '.'))
            escaped += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        else
            escaped += c;
    }
    return escaped;
}

std::string unescape_name(std::string_view name) {
    if (name == "%") return "";
    auto hex_digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    };
    std::string plain;
    plain.reserve(name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '%' && i + 2 < name.size()) {
            const int high = hex_digit(name[i + 1]);
            const int low = hex_digit(name[i + 2]);
            if (high >= 0 && low >= 0) {
                plain += static_cast<char>(high * 16 + low);
                i += 2;
                continue;
            }
        }
        plain += name[i];  // not an escape this writer makes: keep it as it is
    }
    return plain;
}

// --- datasets ---------------------------------------------------------------------------

namespace {

// What every stored chunk of `dataset` must hold: its rows at the stored type's size, plus
// the checksum. The writer applies Fletcher-32 and nothing else, and HDF5 stores even a
// dataset's last chunk whole, so each chunk has exactly this size. Any other filter
// (compression) would make the stored size unpredictable and reach filter code with
// unchecked input: a trace never has one.
hsize_t stored_chunk_bytes(hid_t dataset, hid_t create_plist, hsize_t chunk_rows, const std::string& what,
                           const ErrorContext& context) {
    constexpr hsize_t fletcher32_bytes = 4;
    const int filters = context.check(H5Pget_nfilters(create_plist), "H5Pget_nfilters", what);
    bool checksummed = false;
    for (int i = 0; i < filters; ++i) {
        unsigned flags = 0;
        std::size_t values = 0;
        unsigned filter_config = 0;
        const H5Z_filter_t filter = H5Pget_filter2(create_plist, static_cast<unsigned>(i), &flags, &values, nullptr, 0,
                                                   nullptr, &filter_config);
        if (filter < 0) context.fail_call("H5Pget_filter2", what);
        if (filter != H5Z_FILTER_FLETCHER32 || checksummed)
            context.fail(fmt::format("{} uses HDF5 filter {}, which a trace never uses", what, filter));
        checksummed = true;
    }
    // Without it a flipped byte would be read as a figure and judged.
    if (!checksummed) context.fail(what + " has no Fletcher-32 checksum, which every trace table has: the file is not a trace");
    const Datatype type(context.check(H5Dget_type(dataset), "H5Dget_type", what));
    const std::size_t row_bytes = H5Tget_size(type.get());
    if (row_bytes == 0) context.fail_call("H5Tget_size", what);
    // HDF5 keeps a chunk below 4 GiB: larger figures are damage (and must not overflow).
    constexpr hsize_t max_chunk_bytes = hsize_t{1} << 32;
    if (row_bytes > max_chunk_bytes || chunk_rows > max_chunk_bytes / row_bytes)
        context.fail(fmt::format("{} has chunks of {} rows of {} bytes: the file is damaged", what, chunk_rows, row_bytes));
    return chunk_rows * row_bytes + fletcher32_bytes;
}

}  // namespace

void require_all_chunks(hid_t dataset, hsize_t rows, const std::string& what, const ErrorContext& context) {
    const PropertyList create(context.check(H5Dget_create_plist(dataset), "H5Dget_create_plist", what));
    const H5D_layout_t layout = H5Pget_layout(create.get());
    if (layout < 0) context.fail_call("H5Pget_layout", what);
    if (layout != H5D_CHUNKED)
        context.fail(what + " is not stored in checksummed chunks, as every trace table is: the file is not a trace");
    if (H5Pget_chunk(create.get(), 0, nullptr) != 1) context.fail(what + " has chunks of a rank other than 1");
    hsize_t chunk_rows = 0;
    context.check(H5Pget_chunk(create.get(), 1, &chunk_rows), "H5Pget_chunk", what);
    if (chunk_rows == 0) context.fail(what + " has empty chunks");
    const hsize_t expected = rows / chunk_rows + (rows % chunk_rows != 0 ? 1 : 0);
    const hsize_t chunk_bytes = stored_chunk_bytes(dataset, create.get(), chunk_rows, what, context);
    hsize_t stored = 0;
    const Dataspace space(context.check(H5Dget_space(dataset), "H5Dget_space", what));  // H5S_ALL is refused
    context.check(H5Dget_num_chunks(dataset, space.get(), &stored), "H5Dget_num_chunks", what);
    if (stored != expected)
        context.fail(fmt::format("{} has {} of its {} data chunks: the file is damaged", what, stored, expected));
    // The right count is not enough: a damaged index entry can move a chunk out of place,
    // or damaged index keys can hide it from reads (which then give the fill value) while
    // iterating the index still finds it. Each chunk must be found the way a read finds it
    // (H5Dget_chunk_storage_size) and carry every filter (the checksum).
    for (hsize_t start = 0; start < rows; start += chunk_rows) {
        const auto damaged = [&] {
            context.fail(fmt::format("{} has no intact data chunk for row {}: the file is damaged", what, start));
        };
        hsize_t bytes = 0;
        if (H5Dget_chunk_storage_size(dataset, &start, &bytes) < 0 || bytes == 0) damaged();
        unsigned skipped_filters = 0;
        haddr_t address = HADDR_UNDEF;
        if (H5Dget_chunk_info_by_coord(dataset, &start, &skipped_filters, &address, &bytes) < 0 ||
            address == HADDR_UNDEF || skipped_filters != 0)
            damaged();
        // HDF5 1.10.8 checksums a chunk shorter than the checksum itself far out of bounds
        // (SIGSEGV in H5_checksum_fletcher32): a size other than the shape's is refused here,
        // before any read can reach the filter.
        if (bytes != chunk_bytes)
            context.fail(fmt::format("{} chunk at row {} stores {} bytes where its {} rows take {}: the file is damaged",
                                     what, start, bytes, chunk_rows, chunk_bytes));
    }
}

// --- links ------------------------------------------------------------------------------

Group create_group(hid_t parent, const std::string& name, const ErrorContext& context, bool track_creation_order) {
    const PropertyList create = compact_group_creation(context, track_creation_order);
    return Group(context.check(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, create.get(), H5P_DEFAULT), "H5Gcreate2",
                               fmt::format("'{}' in '{}'", name, object_name(parent))));
}

bool hard_link_exists(hid_t group, const std::string& name, const ErrorContext& context) {
    const std::string what = fmt::format("'{}' in '{}'", name, object_name(group));
    if (context.check(H5Lexists(group, name.c_str(), H5P_DEFAULT), "H5Lexists", what) <= 0) return false;
    H5L_info_t link{};
    context.check(H5Lget_info(group, name.c_str(), &link, H5P_DEFAULT), "H5Lget_info", what);
    if (link.type != H5L_TYPE_HARD) context.fail(what + " is a soft or external link, which a trace never holds");
    return true;
}

namespace {

// Opens a member by name and checks that it is the kind of object the layout expects, so a
// dataset where a group belongs (or the reverse) is one clear line, not an HDF5 stack.
hid_t open_member(hid_t group, const std::string& name, H5I_type_t expected, const ErrorContext& context) {
    const std::string what = fmt::format("'{}' in '{}'", name, object_name(group));
    if (!hard_link_exists(group, name, context)) context.fail(what + " is missing");
    Object object(context.check(H5Oopen(group, name.c_str(), H5P_DEFAULT), "H5Oopen", what));
    if (H5Iget_type(object.get()) != expected)
        context.fail(fmt::format("{} is not a {}", what, expected == H5I_GROUP ? "group" : "dataset"));
    return object.release();  // the caller's typed handle closes it (H5Gclose/H5Dclose)
}

}  // namespace

Group open_group(hid_t group, const std::string& name, const ErrorContext& context) {
    return Group(open_member(group, name, H5I_GROUP, context));
}

Dataset open_dataset(hid_t group, const std::string& name, const ErrorContext& context) {
    return Dataset(open_member(group, name, H5I_DATASET, context));
}

std::vector<std::string> hard_link_names(hid_t group, const ErrorContext& context) {
    const std::string where = in_quotes(object_name(group));
    H5G_info_t info{};
    context.check(H5Gget_info(group, &info), "H5Gget_info", where);
    if (info.nlinks > max_elements) context.fail(fmt::format("{} claims {} members", where, info.nlinks));

    unsigned order_flags = 0;
    const PropertyList create_plist(context.check(H5Gget_create_plist(group), "H5Gget_create_plist", where));
    context.check(H5Pget_link_creation_order(create_plist.get(), &order_flags), "H5Pget_link_creation_order", where);
    const H5_index_t index = (order_flags & H5P_CRT_ORDER_TRACKED) != 0 ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;

    std::vector<std::string> names;
    names.reserve(info.nlinks);
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        const ssize_t length = context.check(
            H5Lget_name_by_idx(group, ".", index, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT), "H5Lget_name_by_idx", where);
        if (static_cast<std::size_t>(length) > max_name_length)
            context.fail(fmt::format("a member of {} has a {}-byte name", where, length));
        std::string name(static_cast<std::size_t>(length) + 1, '\0');
        context.check(H5Lget_name_by_idx(group, ".", index, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT),
                      "H5Lget_name_by_idx", where);
        name.resize(std::strlen(name.c_str()));
        H5L_info_t link{};
        context.check(H5Lget_info_by_idx(group, ".", index, H5_ITER_INC, i, &link, H5P_DEFAULT), "H5Lget_info_by_idx",
                      where);
        if (link.type != H5L_TYPE_HARD)
            context.fail(fmt::format("'{}' in {} is a soft or external link, which a trace never holds", name, where));
        names.push_back(std::move(name));
    }
    return names;
}

}  // namespace shakedown::hdf5
