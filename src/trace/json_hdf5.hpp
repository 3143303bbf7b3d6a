// A generic, lossless-where-it-matters mapping between nlohmann::json and HDF5 groups and
// attributes, used for /inventory. The mapping is documented in docs/trace-format.md:
//   object            -> group (members by escaped key)
//   string/int/uint/double/bool/null -> scalar attribute (vlen UTF-8 / int64 / uint64 /
//                        float64 / enum int8 FALSE,TRUE / null dataspace)
//   array of one scalar kind (or empty) -> 1-D attribute of that type
//   any other array   -> group holding attribute ".array_length" and members "0", "1", ...
#pragma once

#include "trace/hdf5_error.hpp"

#include <hdf5.h>
#include <nlohmann/json.hpp>

namespace shakedown::hdf5 {

// The marker attribute that tells an array group from an object group. Names starting with
// '.' never come from a JSON key (escape_name encodes a leading '.').
inline constexpr const char* json_array_marker = ".array_length";
// Deeper nesting is refused on writing and on reading (a hard-link cycle would be endless).
inline constexpr int max_json_depth = 64;

// Writes every member of `object` (a JSON object) into `group`. Throws
// std::invalid_argument for what JSON has and HDF5 here does not (binary values, nesting
// deeper than max_json_depth).
void write_json_members(hid_t group, const nlohmann::json& object, const ErrorContext& context);

// Reads a group written by write_json_members (or an array group) back into JSON.
nlohmann::json read_json_group(hid_t group, const ErrorContext& context);

}  // namespace shakedown::hdf5
