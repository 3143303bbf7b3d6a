#include "trace/json_hdf5.hpp"

#include "trace/hdf5_io.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace shakedown::hdf5 {
namespace {

using nlohmann::json;

// What a whole array of scalars can be stored as, one attribute of one type.
enum class ArrayKind { empty, strings, bools, signed_integers, unsigned_integers, doubles, mixed };

ArrayKind classify(const json& array) {
    if (array.empty()) return ArrayKind::empty;
    bool all_strings = true, all_bools = true, all_numbers = true, any_float = false;
    bool all_fit_signed = true, all_unsigned = true;
    for (const json& element : array) {
        all_strings = all_strings && element.is_string();
        all_bools = all_bools && element.is_boolean();
        all_numbers = all_numbers && element.is_number();
        any_float = any_float || element.is_number_float();
        all_unsigned = all_unsigned && element.is_number_unsigned();
        if (element.is_number_unsigned() &&
            element.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            all_fit_signed = false;
    }
    if (all_strings) return ArrayKind::strings;
    if (all_bools) return ArrayKind::bools;
    if (!all_numbers) return ArrayKind::mixed;
    if (any_float) return ArrayKind::doubles;
    if (all_fit_signed) return ArrayKind::signed_integers;
    if (all_unsigned) return ArrayKind::unsigned_integers;
    return ArrayKind::doubles;  // negative and above INT64_MAX together: no integer type holds both
}

template <typename Value>
void write_vector(hid_t group, const std::string& name, const std::vector<Value>& values, hid_t file_type,
                  hid_t memory_type, const ErrorContext& context) {
    const Dataspace space = vector_space(values.size(), context);
    put_attribute(group, name, file_type, space.get(), memory_type, values.data(), context);
}

template <typename Value>
std::vector<Value> values_of(const json& array) {
    std::vector<Value> values;
    values.reserve(array.size());
    for (const json& element : array) values.push_back(element.get<Value>());
    return values;
}

// Writes an array whose elements all share one scalar kind as one 1-D attribute; returns
// false for arrays that need a group.
bool write_array_attribute(hid_t group, const std::string& name, const json& array, const ErrorContext& context) {
    switch (classify(array)) {
        case ArrayKind::empty: {
            // A zero-length float64 vector: h5py reads it as an empty array.
            const Dataspace space = vector_space(0, context);
            put_attribute(group, name, H5T_IEEE_F64LE, space.get(), H5T_NATIVE_DOUBLE, nullptr, context);
            return true;
        }
        case ArrayKind::strings:
            write_attribute(group, name, values_of<std::string>(array), context);
            return true;
        case ArrayKind::bools: {
            std::vector<signed char> flags;
            for (const json& element : array) flags.push_back(element.get<bool>() ? 1 : 0);
            const Datatype type = bool_type(context);
            write_vector(group, name, flags, type.get(), type.get(), context);
            return true;
        }
        case ArrayKind::signed_integers:
            write_vector(group, name, values_of<std::int64_t>(array), H5T_STD_I64LE, H5T_NATIVE_INT64, context);
            return true;
        case ArrayKind::unsigned_integers:
            write_vector(group, name, values_of<std::uint64_t>(array), H5T_STD_U64LE, H5T_NATIVE_UINT64, context);
            return true;
        case ArrayKind::doubles:
            write_vector(group, name, values_of<double>(array), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, context);
            return true;
        case ArrayKind::mixed:
            return false;
    }
    return false;
}

void write_value(hid_t group, const std::string& name, const json& value, int depth, const ErrorContext& context);

void write_members(hid_t group, const json& object, int depth, const ErrorContext& context) {
    for (const auto& [key, value] : object.items()) write_value(group, escape_name(key), value, depth, context);
}

void write_value(hid_t group, const std::string& name, const json& value, int depth, const ErrorContext& context) {
    if (depth > max_json_depth)
        throw std::invalid_argument(fmt::format("JSON nested deeper than {} levels cannot go into a trace", max_json_depth));
    switch (value.type()) {
        case json::value_t::object: {
            const Group child = create_group(group, name, context);
            write_members(child.get(), value, depth + 1, context);
            return;
        }
        case json::value_t::array: {
            if (write_array_attribute(group, name, value, context)) return;
            const Group child = create_group(group, name, context);
            write_attribute(child.get(), json_array_marker, static_cast<std::int64_t>(value.size()), context);
            for (std::size_t i = 0; i < value.size(); ++i)
                write_value(child.get(), std::to_string(i), value[i], depth + 1, context);
            return;
        }
        case json::value_t::string:
            write_attribute(group, name, value.get_ref<const std::string&>(), context);
            return;
        case json::value_t::boolean: {
            const signed char flag = value.get<bool>() ? 1 : 0;
            const Datatype type = bool_type(context);
            const Dataspace space = scalar_space(context);
            put_attribute(group, name, type.get(), space.get(), type.get(), &flag, context);
            return;
        }
        case json::value_t::number_integer:
            write_attribute(group, name, value.get<std::int64_t>(), context);
            return;
        case json::value_t::number_unsigned: {
            const std::uint64_t number = value.get<std::uint64_t>();
            const Dataspace space = scalar_space(context);
            put_attribute(group, name, H5T_STD_U64LE, space.get(), H5T_NATIVE_UINT64, &number, context);
            return;
        }
        case json::value_t::number_float:
            write_attribute(group, name, value.get<double>(), context);
            return;
        case json::value_t::null: {
            const Dataspace space = null_space(context);
            put_attribute(group, name, H5T_STD_I8LE, space.get(), H5T_NATIVE_SCHAR, nullptr, context);
            return;
        }
        case json::value_t::binary:
        case json::value_t::discarded:
            break;
    }
    throw std::invalid_argument(fmt::format("JSON value '{}' has a type a trace cannot hold", unescape_name(name)));
}

// --- reading ----------------------------------------------------------------------------

template <typename Value>
json to_json(const Shape& shape, const std::vector<Value>& values) {
    // static_cast: std::vector<bool> hands out proxies, not bools.
    if (shape.kind == Shape::Kind::scalar) return json(static_cast<Value>(values.front()));
    json array = json::array();
    for (const auto& value : values) array.push_back(static_cast<Value>(value));
    return array;
}

json attribute_to_json(const OpenAttribute& attribute, const ErrorContext& context) {
    if (attribute.shape.kind == Shape::Kind::null) return nullptr;
    switch (attribute.type_class) {
        case H5T_STRING:
            return to_json(attribute.shape, read_strings(attribute, context));
        case H5T_INTEGER:
            if (H5Tget_sign(attribute.type.get()) == H5T_SGN_NONE)
                return to_json(attribute.shape, read_unsigned(attribute, context));
            return to_json(attribute.shape, read_signed(attribute, context));
        case H5T_FLOAT:
            return to_json(attribute.shape, read_doubles(attribute, context));
        case H5T_ENUM:
            return to_json(attribute.shape, read_bools(attribute, context));
        default:
            context.fail(attribute.what + " has a type that JSON has no counterpart for");
    }
}

json read_group(hid_t group, int depth, const ErrorContext& context);

json read_member_group(hid_t parent, const std::string& name, int depth, const ErrorContext& context) {
    const Group child = open_group(parent, name, context);
    return read_group(child.get(), depth + 1, context);
}

json read_array(hid_t group, const OpenAttribute& marker, int depth, const ErrorContext& context) {
    if (marker.shape.kind != Shape::Kind::scalar) context.fail(marker.what + " is not a single value");
    const long long length = read_signed(marker, context).front();
    // Each element is one attribute or one member: more than that many is a corrupt count.
    H5G_info_t info{};
    context.check(H5Gget_info(group, &info), "H5Gget_info", marker.what);
    const hsize_t available = info.nlinks + attribute_count(group, context);
    if (length < 0 || static_cast<hsize_t>(length) > available)
        context.fail(fmt::format("{} says {} elements but the group holds {}", marker.what, length, available));
    json array = json::array();
    for (long long i = 0; i < length; ++i) {
        const std::string name = std::to_string(i);
        if (hard_link_exists(group, name, context)) {
            array.push_back(read_member_group(group, name, depth, context));
        } else if (std::optional<OpenAttribute> element = open_attribute(group, name, context)) {
            array.push_back(attribute_to_json(*element, context));
        } else {
            context.fail(fmt::format("array '{}' has no element {}", object_name(group), i));
        }
    }
    return array;
}

json read_group(hid_t group, int depth, const ErrorContext& context) {
    if (depth > max_json_depth)
        context.fail(fmt::format("'{}' is nested deeper than {} levels", object_name(group), max_json_depth));
    if (std::optional<OpenAttribute> marker = open_attribute(group, json_array_marker, context))
        return read_array(group, *marker, depth, context);

    json object = json::object();
    const hsize_t count = attribute_count(group, context);
    for (hsize_t i = 0; i < count; ++i) {
        std::string name;
        const OpenAttribute attribute = open_attribute_by_index(group, i, name, context);
        if (name.starts_with('.')) continue;  // the trace's own markers, never a JSON key
        object[unescape_name(name)] = attribute_to_json(attribute, context);
    }
    for (const std::string& name : hard_link_names(group, context))
        object[unescape_name(name)] = read_member_group(group, name, depth, context);
    return object;
}

}  // namespace

void write_json_members(hid_t group, const nlohmann::json& object, const ErrorContext& context) {
    if (!object.is_object()) throw std::invalid_argument("only a JSON object can be written as an HDF5 group");
    write_members(group, object, 0, context);
}

nlohmann::json read_json_group(hid_t group, const ErrorContext& context) { return read_group(group, 0, context); }

}  // namespace shakedown::hdf5
