#include "trace/hdf5_records.hpp"

#include "trace/hdf5_io.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace shakedown::hdf5 {

void RecordLayout::add_text(std::string name, std::size_t capacity, H5T_cset_t charset, H5T_str_t padding) {
    capacity = std::max<std::size_t>(capacity, 1);
    fields_.push_back({std::move(name), FieldKind::text, size_, capacity, charset, padding});
    size_ += capacity;
}

void RecordLayout::add_number(std::string name) {
    fields_.push_back({std::move(name), FieldKind::number, size_, sizeof(double), H5T_CSET_ASCII, H5T_STR_NULLTERM});
    size_ += sizeof(double);
}

Datatype RecordLayout::datatype(const ErrorContext& context) const {
    Datatype type(context.check(H5Tcreate(H5T_COMPOUND, std::max<std::size_t>(size_, 1)), "H5Tcreate", "a table type"));
    for (const Field& field : fields_) {
        const std::string what = fmt::format("field '{}'", field.name);
        if (field.kind == FieldKind::number) {
            context.check(H5Tinsert(type.get(), field.name.c_str(), field.offset, H5T_NATIVE_DOUBLE), "H5Tinsert", what);
        } else {
            const Datatype text = text_type(field.size, context);
            context.check(H5Tset_cset(text.get(), field.charset), "H5Tset_cset", what);
            context.check(H5Tset_strpad(text.get(), field.padding), "H5Tset_strpad", what);
            context.check(H5Tinsert(type.get(), field.name.c_str(), field.offset, text.get()), "H5Tinsert", what);
        }
    }
    return type;
}

void RecordLayout::set_text(std::span<char> record, std::size_t field, std::string_view text) const {
    const Field& target = fields_.at(field);
    std::size_t length = std::min(text.size(), target.size - 1);
    // Never cut a multi-byte UTF-8 character in half: back off over continuation bytes.
    if (length < text.size())
        while (length > 0 && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) --length;
    char* out = record.data() + target.offset;
    std::memcpy(out, text.data(), length);
    std::memset(out + length, 0, target.size - length);
}

void RecordLayout::set_number(std::span<char> record, std::size_t field, double value) const {
    std::memcpy(record.data() + fields_.at(field).offset, &value, sizeof value);
}

std::string RecordLayout::text(std::span<const char> record, std::size_t field) const {
    const Field& source = fields_.at(field);
    const char* start = record.data() + source.offset;
    return {start, ::strnlen(start, source.size)};
}

double RecordLayout::number(std::span<const char> record, std::size_t field) const {
    double value = 0.0;
    std::memcpy(&value, record.data() + fields_.at(field).offset, sizeof value);
    return value;
}

PropertyList transfer_for(hid_t stored_type, std::size_t memory_row_size, std::size_t rows,
                          const ErrorContext& context) {
    const std::size_t row_size = std::max(H5Tget_size(stored_type), memory_row_size);
    const std::size_t bytes = std::clamp<std::size_t>(row_size * std::max<std::size_t>(rows, 1), row_size,
                                                      std::max<std::size_t>(row_size, std::size_t{1} << 20));
    PropertyList transfer(context.check(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate", "a transfer list"));
    context.check(H5Pset_buffer(transfer.get(), bytes, nullptr, nullptr), "H5Pset_buffer", "a transfer list");
    return transfer;
}

RecordLayout stored_layout(hid_t stored_type, std::span<const FieldSpec> fields, const std::string& what,
                           const ErrorContext& context) {
    if (H5Tget_class(stored_type) != H5T_COMPOUND) context.fail(what + " is not a table (compound dataset)");
    RecordLayout layout;
    for (const FieldSpec& spec : fields) {
        const int index = H5Tget_member_index(stored_type, spec.name);
        if (index < 0) context.fail(fmt::format("{} has no field '{}'", what, spec.name));
        const Datatype member(context.check(H5Tget_member_type(stored_type, static_cast<unsigned>(index)),
                                            "H5Tget_member_type", what));
        const H5T_class_t member_class = H5Tget_class(member.get());
        if (spec.kind == FieldKind::number) {
            if (member_class != H5T_FLOAT && member_class != H5T_INTEGER)
                context.fail(fmt::format("{} field '{}' is not a number", what, spec.name));
            layout.add_number(spec.name);
            continue;
        }
        if (member_class != H5T_STRING || H5Tis_variable_str(member.get()) != 0)
            context.fail(fmt::format("{} field '{}' is not a fixed-length string", what, spec.name));
        const H5T_cset_t charset = H5Tget_cset(member.get());
        if (charset != H5T_CSET_UTF8 && charset != H5T_CSET_ASCII)
            context.fail(fmt::format("{} field '{}' has an unknown character set", what, spec.name));
        const std::size_t size = H5Tget_size(member.get());
        if (size == 0 || size > max_text_bytes)
            context.fail(fmt::format("{} field '{}' has an implausible size of {} bytes", what, spec.name, size));
        const H5T_str_t padding = H5Tget_strpad(member.get());
        if (padding == H5T_STR_ERROR) context.fail_call("H5Tget_strpad", what);
        // The stored size and padding: text() stops at the field's end even without a NUL.
        layout.add_text(spec.name, size, charset, padding);
    }
    return layout;
}

}  // namespace shakedown::hdf5
