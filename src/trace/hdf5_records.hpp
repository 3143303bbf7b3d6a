// Rows of a compound table as packed bytes: fixed-length text fields and float64 fields at
// computed offsets. The writer sizes each text field to its longest value; the reader takes
// the sizes from the stored type (after checking them), so no variable-length data, and no
// unchecked size, is ever involved.
#pragma once

#include "trace/hdf5_error.hpp"
#include "trace/hdf5_handle.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::hdf5 {

enum class FieldKind { text, number };

struct FieldSpec {
    const char* name;
    FieldKind kind;
};

class RecordLayout {
public:
    // `capacity`: bytes including the terminating NUL. Character set and padding matter
    // for reading: with the stored ones the row type equals the stored type and HDF5 reads
    // without a conversion (which would cost it a 1 MiB scratch buffer per read).
    void add_text(std::string name, std::size_t capacity, H5T_cset_t charset = H5T_CSET_UTF8,
                  H5T_str_t padding = H5T_STR_NULLTERM);
    void add_number(std::string name);

    std::size_t size() const { return size_; }
    // The compound type of one row: fixed-length UTF-8 text, native float64.
    Datatype datatype(const ErrorContext& context) const;

    // Field access by position (the order of add_*). set_text cuts text that does not fit
    // at a UTF-8 character boundary.
    void set_text(std::span<char> record, std::size_t field, std::string_view text) const;
    void set_number(std::span<char> record, std::size_t field, double value) const;
    std::string text(std::span<const char> record, std::size_t field) const;
    double number(std::span<const char> record, std::size_t field) const;

private:
    struct Field {
        std::string name;
        FieldKind kind;
        std::size_t offset;
        std::size_t size;
        H5T_cset_t charset;
        H5T_str_t padding;
    };
    std::vector<Field> fields_;
    std::size_t size_ = 0;
};

// A dataset transfer list whose conversion buffer fits `rows` rows of the larger of the
// stored and the memory type, instead of HDF5's default 1 MiB allocated for every read.
PropertyList transfer_for(hid_t stored_type, std::size_t memory_row_size, std::size_t rows,
                          const ErrorContext& context);

// The layout for reading `fields` (in that order) from a stored compound type: each must be
// present, numbers must be integer or float, texts fixed-length strings of a sane size.
// Fails with "<what> has no field 'x'" / "... field 'x' is not a number" and the like.
RecordLayout stored_layout(hid_t stored_type, std::span<const FieldSpec> fields, const std::string& what,
                           const ErrorContext& context);

}  // namespace shakedown::hdf5
