# Turns the job templates into a C++ source with a table name -> text, so the shakedown
# binary carries the templates it was built with and needs no data folder at run time.
# Bytes are written as hex: no character of a template can break the generated source.
# Usage: cmake -DOUTPUT=out.cpp -DTEMPLATES="a.sbatch.in;b.sh.in" -P embed_templates.cmake
set(entries "")
set(arrays "")
set(index 0)
foreach(template IN LISTS TEMPLATES)
  get_filename_component(name "${template}" NAME)
  string(REGEX REPLACE "\\.in$" "" name "${name}")
  file(READ "${template}" hex_text HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," byte_list "${hex_text}")
  string(LENGTH "${hex_text}" hex_length)
  math(EXPR byte_count "${hex_length} / 2")
  string(APPEND arrays "constexpr char template_${index}[] = {${byte_list} '\\0'};\n")
  string(APPEND entries "    {\"${name}\", {template_${index}, ${byte_count}}},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
"// Generated from slurm/templates by embed_templates.cmake at build time: do not edit.
#include \"slurm/embedded_templates.hpp\"

#include <array>
#include <utility>

namespace shakedown::slurm {
namespace {
${arrays}
constexpr std::array<std::pair<std::string_view, std::string_view>, ${index}> templates{{
${entries}}};
}  // namespace

std::optional<std::string_view> embedded_template(std::string_view name) {
    for (const auto& [template_name, text] : templates)
        if (template_name == name) return text;
    return std::nullopt;
}

}  // namespace shakedown::slurm
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
