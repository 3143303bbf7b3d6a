// Small typed building blocks over the HDF5 C API: the datatypes the trace uses, dataspaces,
// and attributes written and read with every shape and type check a hostile file needs.
#pragma once

#include "trace/hdf5_error.hpp"
#include "trace/hdf5_handle.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::hdf5 {

// The reader refuses any attribute or table larger than this many elements: a real trace is
// far below it, and a corrupt size field must not turn into a huge allocation.
inline constexpr hsize_t max_elements = hsize_t{1} << 26;

// --- datatypes --------------------------------------------------------------------------
// Strings are fixed-length UTF-8 (NUL-terminated, `capacity` bytes with the NUL), never
// variable-length: variable-length strings live in HDF5's global heap, and HDF5 1.10 reads a
// damaged heap reference out of bounds (a crash the reader cannot prevent). Fixed-length
// strings are plain bytes whose size the reader checks before reading.
Datatype text_type(std::size_t capacity, const ErrorContext& context);
// A text type for `text` (capacity its length + 1, at least `reserve`).
Datatype text_type_for(std::string_view text, const ErrorContext& context, std::size_t reserve = 0);
// The longest text the reader accepts in one string (attribute element or table field).
inline constexpr std::size_t max_text_bytes = std::size_t{1} << 24;
Datatype bool_type(const ErrorContext& context);    // enum int8 {FALSE=0, TRUE=1}: what h5py uses

// --- files ------------------------------------------------------------------------------
// The file access list the writer and the reader share (HDF5 refuses to open a file twice
// in one process with lists that differ in these settings):
// - no HDF5 file lock: H5F_ACC_EXCL already keeps a second writer out, readers (the
//   analyzer, a test in the same process) may look at a trace still being written, and
//   locks fail or hang on some parallel file systems;
// - strong close: closing the file closes every object still open in it.
PropertyList trace_file_access(const ErrorContext& context);

// Creation lists that keep every link and attribute of a group in its object header
// ("compact" storage) however many there are. HDF5 otherwise moves groups with more than 8
// members or attributes into "dense" storage (a fractal heap), and HDF5 1.10 frees
// uninitialized memory when it meets a damaged dense group (found by our damaged-file test
// under AddressSanitizer). Object headers carry a checksum in the 1.8 format, so a damaged
// compact group is rejected cleanly before anything is decoded.
PropertyList compact_group_creation(const ErrorContext& context, bool track_creation_order = false);
PropertyList compact_file_creation(const ErrorContext& context);  // the same for the root group

// --- dataspaces -------------------------------------------------------------------------
Dataspace scalar_space(const ErrorContext& context);
Dataspace null_space(const ErrorContext& context);  // no value at all: JSON null
Dataspace vector_space(hsize_t count, const ErrorContext& context);
Dataspace extendable_vector_space(hsize_t count, const ErrorContext& context);  // max unlimited

// How many values a dataspace holds: null (none), one scalar, or a 1-D vector.
struct Shape {
    enum class Kind { null, scalar, vector } kind = Kind::scalar;
    hsize_t count = 1;
};
// Fails (naming `what`) for ranks above 1 and for more than max_elements values.
Shape shape_of(hid_t space, std::string_view what, const ErrorContext& context);

// The HDF5 path of an open object ("/tests/stream"), for messages; "?" when unknown.
std::string object_name(hid_t object);

// --- attributes: writing ----------------------------------------------------------------
// Writes `data` (in `memory_type`) as attribute `name`, creating it or overwriting the one
// already there: in place when the stored type and shape are the same (the writer updates
// status and end_utc so), else by deleting and recreating it.
void put_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t space,
                   hid_t memory_type, const void* data, const ErrorContext& context);

// `reserve`: the stored capacity at least, so that later values up to that length are
// written in place (root status "running" -> "complete").
void write_attribute(hid_t object, const std::string& name, std::string_view value,
                     const ErrorContext& context, std::size_t reserve = 0);
void write_attribute(hid_t object, const std::string& name, double value, const ErrorContext& context);
void write_attribute(hid_t object, const std::string& name, std::int64_t value,
                     const ErrorContext& context);
void write_attribute(hid_t object, const std::string& name, const std::vector<std::string>& values,
                     const ErrorContext& context);

// --- attributes: reading ----------------------------------------------------------------
hsize_t attribute_count(hid_t object, const ErrorContext& context);

// An open attribute plus its file type and dataspace, checked once.
struct OpenAttribute {
    Attribute attribute;
    Datatype type;
    Dataspace space;
    H5T_class_t type_class = H5T_NO_CLASS;
    Shape shape;
    std::string what;  // "attribute 'status' of '/tests/stream'" for messages
};

std::optional<OpenAttribute> open_attribute(hid_t object, const std::string& name, const ErrorContext& context);
OpenAttribute open_attribute_by_index(hid_t object, hsize_t index, std::string& name, const ErrorContext& context);

// Whole-attribute reads; each checks the type class first and fails with a clear line.
// read_strings refuses variable-length strings (see text_type).
std::vector<std::string> read_strings(const OpenAttribute& attribute, const ErrorContext& context);
std::vector<double> read_doubles(const OpenAttribute& attribute, const ErrorContext& context);  // float or integer
std::vector<long long> read_signed(const OpenAttribute& attribute, const ErrorContext& context);
std::vector<unsigned long long> read_unsigned(const OpenAttribute& attribute, const ErrorContext& context);
std::vector<bool> read_bools(const OpenAttribute& attribute, const ErrorContext& context);

// The trace layout's required scalar attributes: missing, non-scalar or mistyped fails.
std::string require_string(hid_t object, const std::string& name, const ErrorContext& context);
double require_double(hid_t object, const std::string& name, const ErrorContext& context);
long long require_integer(hid_t object, const std::string& name, const ErrorContext& context);

// --- names ------------------------------------------------------------------------------
// HDF5 link and attribute names cannot be empty, contain '/' or NUL, or be "."; JSON keys,
// test keys and device names can. escape_name percent-encodes '%', '/', NUL and a leading
// '.' (names starting with '.' are reserved for the trace's own markers) and writes the
// empty name as "%"; unescape_name inverts it. Ordinary names pass unchanged.
std::string escape_name(std::string_view name);
std::string unescape_name(std::string_view name);

// --- datasets ---------------------------------------------------------------------------
// Checks that a chunked dataset of `rows` rows (1-D) has every chunk it needs. The 1.8 chunk
// index (a v1 B-tree) carries no checksum: when damage makes a chunk unfindable, HDF5 reads
// zeros (the fill value) without an error. Checking that each chunk is where it belongs,
// with its checksum filter applied, turns that into an error. Each chunk must also store
// exactly the bytes its rows and checksum take, and Fletcher-32 must be the only filter: a
// chunk shorter than its checksum crashes HDF5 1.10.8's filter, so its size is checked first.
// A dataset of another layout, or without the checksum, is refused: every trace table has both,
// and without the checksum a flipped byte would be judged as a figure.
void require_all_chunks(hid_t dataset, hsize_t rows, const std::string& what, const ErrorContext& context);

// --- links ------------------------------------------------------------------------------
// Creates group `name` in `parent` with compact_group_creation.
Group create_group(hid_t parent, const std::string& name, const ErrorContext& context,
                   bool track_creation_order = false);

// Whether `group` has a member `name`; a member that is a soft or external link fails
// (the reader never follows a link out of the file or around it).
bool hard_link_exists(hid_t group, const std::string& name, const ErrorContext& context);
// Opens member `name` of `group`, which must be a group (or, below, a dataset).
Group open_group(hid_t group, const std::string& name, const ErrorContext& context);
Dataset open_dataset(hid_t group, const std::string& name, const ErrorContext& context);
// Names of the hard links in `group`, in creation order when the group tracks it, else by
// name. Soft and external links are never followed: they are reported as an error.
std::vector<std::string> hard_link_names(hid_t group, const ErrorContext& context);

}  // namespace shakedown::hdf5
