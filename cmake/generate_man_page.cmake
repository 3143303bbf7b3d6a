# cmake -DHELP2MAN=... -DPROGRAM=bin -DNAME=name -DDESCRIPTION=text -DVERSION=x.y.z -DOUTPUT=page.1 -P generate_man_page.cmake
# The page is the binary's own --help, and a COMMANDS section holds the --help of each of its
# subcommands (and theirs, one level down) as the binary lists them, so it cannot drift from the
# command line. A binary that cannot start here (e.g. linked against a CUDA driver this build
# machine lacks) gets no page and a warning, not a failed build: install() takes it as OPTIONAL.
file(REMOVE ${OUTPUT})
execute_process(COMMAND ${PROGRAM} --help RESULT_VARIABLE _runs OUTPUT_VARIABLE _help ERROR_VARIABLE _why)
if(NOT _runs EQUAL 0)
  string(STRIP "${_why}" _why)
  message(WARNING "no man page for ${NAME}: '${PROGRAM} --help' failed here (${_why})")
  return()
endif()

# The names CLI11 lists under "Subcommands:" in a --help text.
function(_subcommands help out)
  set(_names "")
  set(_inside OFF)
  string(REPLACE "\n" ";" _lines "${help}")
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "^Subcommands:")
      set(_inside ON)
    elseif(_inside AND _line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
      list(APPEND _names ${CMAKE_MATCH_1})
    elseif(_inside AND NOT _line MATCHES "^ ")
      set(_inside OFF)
    endif()
  endforeach()
  set(${out} ${_names} PARENT_SCOPE)
endfunction()

# roff: a backslash is \e, a line starting with . or ' would be a request.
function(_roff_text text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(_include "")
_subcommands("${_help}" _commands)
foreach(_command IN LISTS _commands)
  execute_process(COMMAND ${PROGRAM} ${_command} --help OUTPUT_VARIABLE _text RESULT_VARIABLE _failed ERROR_QUIET)
  if(_failed)
    continue()
  endif()
  _subcommands("${_text}" _nested)
  set(_entries "${_command}")
  foreach(_sub IN LISTS _nested)
    list(APPEND _entries "${_command} ${_sub}")
  endforeach()
  foreach(_entry IN LISTS _entries)
    string(REPLACE " " ";" _argv "${_entry}")
    execute_process(COMMAND ${PROGRAM} ${_argv} --help OUTPUT_VARIABLE _text RESULT_VARIABLE _failed ERROR_QUIET)
    if(_failed)
      continue()
    endif()
    # CLI11 names the program by the path it was started with: the page names it by its name.
    string(REPLACE "${PROGRAM}" "${NAME}" _text "${_text}")
    _roff_text("${_text}" _text)
    string(APPEND _include ".SS \"${NAME} ${_entry}\"\n.nf\n${_text}.fi\n")
  endforeach()
endforeach()
set(_extra "")
if(NOT _include STREQUAL "")
  file(WRITE ${OUTPUT}.include "[COMMANDS]\n${_include}")
  set(_extra --include=${OUTPUT}.include)
endif()

execute_process(
  COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section=1 --version-string=${VERSION}
          "--name=${DESCRIPTION}" ${_extra} --output=${OUTPUT}.tmp ${PROGRAM}
  RESULT_VARIABLE _made)
file(REMOVE ${OUTPUT}.include)
if(NOT _made EQUAL 0)
  message(FATAL_ERROR "help2man failed on ${PROGRAM}")
endif()
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
