# Turns a text file into a C++ source defining `std::string_view FUNCTION()` in namespace
# NAMESPACE, so shipped defaults live in the binary and cannot drift from the repository copy.
# Bytes are written as hex, so no character of the input can break the generated source.
# Usage: cmake -DINPUT=in.yaml -DOUTPUT=out.cpp -DHEADER=x.hpp -DNAMESPACE=a::b -DFUNCTION=f -P embed_text.cmake
file(READ "${INPUT}" hex_text HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," byte_list "${hex_text}")
string(LENGTH "${hex_text}" hex_length)
math(EXPR byte_count "${hex_length} / 2")
file(WRITE "${OUTPUT}.tmp"
"// Generated from ${INPUT} by embed_text.cmake at build time: do not edit.
#include \"${HEADER}\"

namespace ${NAMESPACE} {
namespace {
constexpr char ${FUNCTION}_bytes[] = {${byte_list} '\\0'};  // named per file: a unity build batches several
}  // namespace

std::string_view ${FUNCTION}() { return {${FUNCTION}_bytes, ${byte_count}}; }

}  // namespace ${NAMESPACE}
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
