# `cmake --install BUILD --prefix P` gives a relocatable tree:
#   P/bin/shakedown, P/bin/shakedown-analyze   RUNPATH: the directories of the libraries linked
#                                              from outside the project (it installs none itself)
#   P/share/shakedown/{thresholds,configs,templates,schemas}
#   P/share/doc/shakedown/                     README.md and docs/
#   P/share/man/man1/*.1                       generated from each binary's --help (help2man)
# Included before any target exists (the RUNPATH settings apply to targets made afterwards);
# the data, docs and man pages are declared once every target exists (deferred below).
include(GNUInstallDirs)

# CMake's default install RUNPATH is empty: a CUDA toolkit, Kokkos or HDF5 outside the loader's
# default path would then not be found from the installed binary. Keep the link-time
# directories that lie outside the build tree; never a build directory, and no folder of the
# prefix: the project's own libraries are static, so the install has no lib/ to name.
set(CMAKE_INSTALL_RPATH "")
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH TRUE)

find_program(SHAKEDOWN_HELP2MAN help2man)
if(SHAKEDOWN_HELP2MAN)
  set(_man_default ON)
else()
  set(_man_default OFF)
endif()
option(SHAKEDOWN_MAN_PAGES "Generate man pages from the binaries' --help with help2man" ${_man_default})
if(SHAKEDOWN_MAN_PAGES AND NOT SHAKEDOWN_HELP2MAN)
  message(FATAL_ERROR "SHAKEDOWN_MAN_PAGES=ON but help2man was not found (Debian: apt-get install help2man)")
endif()

set(SHAKEDOWN_DATA_DIR "${CMAKE_INSTALL_DATADIR}/shakedown")  # relative to the prefix

function(_shakedown_install_data)
  set(_data ${SHAKEDOWN_DATA_DIR})
  install(FILES ${PROJECT_SOURCE_DIR}/analysis/thresholds/default.yaml
                ${PROJECT_SOURCE_DIR}/analysis/thresholds/calibrated.yaml
          DESTINATION ${_data}/thresholds)
  # Example configurations, one folder per test family that has them.
  foreach(_family health mpi kernels ib)
    if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${_family}/configs)
      install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_family}/configs/ DESTINATION ${_data}/configs/${_family}
              FILES_MATCHING PATTERN "*.yaml")
    endif()
  endforeach()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/slurm/templates/ DESTINATION ${_data}/templates)
  # The published JSON Schemas, whenever the folder exists at install time.
  install(CODE "
    file(GLOB _schemas \"${PROJECT_SOURCE_DIR}/analysis/schemas/*.json\")
    if(_schemas)
      file(INSTALL \${_schemas} DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${_data}/schemas\")
    endif()")
  install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")

  if(SHAKEDOWN_MAN_PAGES)
    set(_pages "")
    set(_what_shakedown "run acceptance tests on every rank of an MPI job and write per-rank HDF5 traces")
    set(_what_shakedown-analyze "judge a shakedown run folder: PASS, WARN or FAIL per node with the reason")
    foreach(_program shakedown shakedown-analyze)
      set(_page ${PROJECT_BINARY_DIR}/man/${_program}.1)
      add_custom_command(
        OUTPUT ${_page}
        COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${SHAKEDOWN_HELP2MAN} -DPROGRAM=$<TARGET_FILE:${_program}>
                -DNAME=${_program} "-DDESCRIPTION=${_what_${_program}}" -DVERSION=${PROJECT_VERSION} -DOUTPUT=${_page}
                -P ${PROJECT_SOURCE_DIR}/cmake/generate_man_page.cmake
        DEPENDS ${_program} ${PROJECT_SOURCE_DIR}/cmake/generate_man_page.cmake
        COMMENT "Man page ${_program}.1 from ${_program} --help" VERBATIM)
      list(APPEND _pages ${_page})
    endforeach()
    add_custom_target(shakedown_man_pages ALL DEPENDS ${_pages})
    # OPTIONAL: a binary that cannot start on the build machine (a CUDA build without the
    # driver) leaves no page; generate_man_page.cmake says so at build time.
    install(FILES ${_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 OPTIONAL)
  endif()
endfunction()

cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL _shakedown_install_data)
