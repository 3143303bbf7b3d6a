# cmake -DSOURCE_DIR=... -DOUTPUT=git_commit.cpp -P git_commit.cmake
# Runs at every build: the commit the binary is built from, "-dirty" with uncommitted changes to
# tracked files, "unknown" outside a git checkout (a release tarball, a Spack stage). The file
# is rewritten only when that changes, so an unchanged tree recompiles nothing.
find_package(Git QUIET)
set(_commit "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE _head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _failed ERROR_QUIET)
  if(NOT _failed)
    set(_commit "${_head}")
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE _changes RESULT_VARIABLE _failed ERROR_QUIET)
    if(NOT _failed AND NOT _changes STREQUAL "")
      string(APPEND _commit "-dirty")
    endif()
  endif()
endif()
set(_text "// Generated at build time by cmake/git_commit.cmake: do not edit.
#include \"core/git_commit.hpp\"

namespace shakedown {

std::string_view build_git_commit() { return \"${_commit}\"; }

}  // namespace shakedown
")
file(WRITE ${OUTPUT}.tmp "${_text}")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
