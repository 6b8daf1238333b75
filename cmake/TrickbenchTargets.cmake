# The targets, derived from the sources' #include lines so that nothing lists tricks
# (or their dependencies) by hand:
#
#   benches/<id>.cc (+ <id>_cuda.cc with CUDA) + trickbench_main  ->  benches/<id>
#   harness/main.cc, compiled once                                ->  trickbench_main
#   every folder whose headers a trick includes, transitively     ->  a static library
#     of that folder's *.cc, without tests (*_test.cc, files that include gtest), files
#     with their own main(), *_cuda.cc unless CUDA is on and *_nocuda.cc when it is
#   run_all/main.cc -> run_all;  harness/gpu_selftest.cc -> gpu_selftest;
#   reports/<name>_main.cc -> <name> (the report and compare tools);
#   determinism/diff_main.cc -> trace_diff (the reproducibility traces' diff)
#
# A folder or trick that includes <opencv2/...>, <lmdb.h>, <jpeglib.h> or c10d's
# ProcessGroupGloo.hpp needs that library (Gloo: its headers); when it is missing, the
# folder and every trick that depends on it are left out with the reason (listed in
# <build>/skipped_tricks.txt), and the rest still builds.

set(TRICKBENCH_COPTS -Wall -Wextra -Wno-unused-parameter -Wno-maybe-uninitialized
    -Wno-missing-field-initializers -Wno-deprecated-declarations)
set(_src "${PROJECT_SOURCE_DIR}")

# Externals a header name calls for: include pattern -> trickbench:: target.
set(_external_patterns "^opencv2/" "^lmdb\\.h$" "^jpeglib\\.h$"
    "^torch/csrc/distributed/c10d/ProcessGroupGloo")
set(_external_targets opencv lmdb jpeg gloo)

# trickbench_scan(<files> OUT_PACKAGES <var> OUT_EXTERNALS <var>): the project folders
# whose headers the files include (relative to the source root), and the externals.
function(trickbench_scan)
  cmake_parse_arguments(ARG "" "OUT_PACKAGES;OUT_EXTERNALS" "FILES" ${ARGN})
  set(packages)
  set(externals)
  foreach(f IN LISTS ARG_FILES)
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
    foreach(line IN LISTS lines)
      if(NOT line MATCHES "[<\"]([^>\"]+)[>\"]")
        continue()
      endif()
      set(header "${CMAKE_MATCH_1}")
      if(EXISTS "${_src}/${header}" AND NOT IS_DIRECTORY "${_src}/${header}")
        get_filename_component(dir "${header}" DIRECTORY)
        if(dir)
          list(APPEND packages "${dir}")
        endif()
      else()
        list(LENGTH _external_patterns n)
        math(EXPR last "${n} - 1")
        foreach(i RANGE ${last})
          list(GET _external_patterns ${i} pattern)
          if(header MATCHES "${pattern}")
            list(GET _external_targets ${i} target)
            list(APPEND externals ${target})
          endif()
        endforeach()
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES packages)
  list(REMOVE_DUPLICATES externals)
  set(${ARG_OUT_PACKAGES} "${packages}" PARENT_SCOPE)
  set(${ARG_OUT_EXTERNALS} "${externals}" PARENT_SCOPE)
endfunction()

# The library sources of a folder (see the rules at the top).
function(trickbench_package_sources package out)
  file(GLOB files CONFIGURE_DEPENDS "${_src}/${package}/*.cc")
  set(kept)
  foreach(f IN LISTS files)
    if(f MATCHES "_test\\.cc$" OR (f MATCHES "_cuda\\.cc$" AND NOT TRICKBENCH_WITH_CUDA)
       OR (f MATCHES "_nocuda\\.cc$" AND TRICKBENCH_WITH_CUDA))
      continue()
    endif()
    file(STRINGS "${f}" own_main_or_test REGEX "^int main\\(|#[ \t]*include[ \t]*<g(test|mock)/")
    if(own_main_or_test)
      continue()
    endif()
    list(APPEND kept "${f}")
  endforeach()
  set(${out} "${kept}" PARENT_SCOPE)
endfunction()

# Sources that register themselves from a static initialiser and that nothing calls
# (harness/cuda_backend_cuda.cc: Bazel's alwayslink). In a static library the linker
# would drop them, and a CUDA build would silently time on the CPU clock; so they go
# into an object library that every executable using their folder links directly.
function(trickbench_self_registering sources out)
  set(found)
  foreach(f IN LISTS sources)
    file(STRINGS "${f}" registers REGEX "^[^/]*const bool registered = [A-Za-z:]+::Register\\(")
    if(registers)
      list(APPEND found "${f}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

function(trickbench_package_target package out)
  string(REPLACE "/" "_" name "${package}")
  set(${out} "trickbench_pkg_${name}" PARENT_SCOPE)
endfunction()

# --- tricks and what they include --------------------------------------------------------
file(GLOB _trick_files CONFIGURE_DEPENDS "${_src}/benches/*.cc")
list(FILTER _trick_files EXCLUDE REGEX "(_cuda|_test)\\.cc$")
list(SORT _trick_files)

set(_pending)
file(GLOB _report_mains CONFIGURE_DEPENDS "${_src}/reports/*_main.cc")
foreach(f IN LISTS _trick_files _report_mains ITEMS "${_src}/harness/main.cc"
        "${_src}/run_all/main.cc" "${_src}/harness/gpu_selftest.cc"
        "${_src}/determinism/diff_main.cc")
  trickbench_scan(FILES "${f}" OUT_PACKAGES p OUT_EXTERNALS e)
  list(APPEND _pending ${p})
endforeach()

# Every package reachable from them, with its direct dependencies.
set(_packages)
while(_pending)
  list(POP_FRONT _pending package)
  if(package IN_LIST _packages OR package STREQUAL "benches")
    continue()
  endif()
  list(APPEND _packages "${package}")
  trickbench_package_sources("${package}" sources)
  file(GLOB headers CONFIGURE_DEPENDS "${_src}/${package}/*.h")
  trickbench_scan(FILES ${sources} ${headers} OUT_PACKAGES deps OUT_EXTERNALS ext)
  list(REMOVE_ITEM deps "${package}")
  trickbench_self_registering("${sources}" registering)
  if(registering)
    list(REMOVE_ITEM sources ${registering})
  endif()
  set(_pkg_${package}_sources "${sources}")
  set(_pkg_${package}_registering "${registering}")
  set(_pkg_${package}_deps "${deps}")
  set(_pkg_${package}_externals "${ext}")
  list(APPEND _pending ${deps})
endwhile()

# Availability: a package is out when an external it needs is missing, or a package it
# depends on is out (iterated to a fixed point).
foreach(package IN LISTS _packages)
  set(_pkg_${package}_missing "")
  foreach(ext IN LISTS _pkg_${package}_externals)
    if(NOT TARGET trickbench::${ext})
      set(_pkg_${package}_missing "${package}/ needs ${ext}, not found")
    endif()
  endforeach()
endforeach()
set(_changed TRUE)
while(_changed)
  set(_changed FALSE)
  foreach(package IN LISTS _packages)
    if(_pkg_${package}_missing)
      continue()
    endif()
    foreach(dep IN LISTS _pkg_${package}_deps)
      if(_pkg_${dep}_missing)
        set(_pkg_${package}_missing "${_pkg_${dep}_missing}")
        set(_changed TRUE)
      endif()
    endforeach()
  endforeach()
endwhile()

# --- package libraries -------------------------------------------------------------------
foreach(package IN LISTS _packages)
  if(_pkg_${package}_missing)
    continue()
  endif()
  trickbench_package_target("${package}" target)
  if(_pkg_${package}_registering)
    add_library(${target}_registering OBJECT ${_pkg_${package}_registering})
    target_compile_options(${target}_registering PRIVATE ${TRICKBENCH_COPTS})
    target_include_directories(${target}_registering PRIVATE "${_src}")
    target_link_libraries(${target}_registering PRIVATE trickbench::torch trickbench::cuda
                          trickbench::json trickbench::nvtx)
  endif()
  if(_pkg_${package}_sources)
    add_library(${target} STATIC ${_pkg_${package}_sources})
    target_compile_options(${target} PRIVATE ${TRICKBENCH_COPTS})
    set(scope PUBLIC)
  else()
    add_library(${target} INTERFACE)
    set(scope INTERFACE)
  endif()
  target_include_directories(${target} ${scope} "${_src}")
  target_link_libraries(${target} ${scope} trickbench::torch trickbench::cuda trickbench::json
                        trickbench::nvtx Threads::Threads ${CMAKE_DL_LIBS})
  foreach(ext IN LISTS _pkg_${package}_externals)
    target_link_libraries(${target} ${scope} trickbench::${ext})
  endforeach()
endforeach()
# Dependencies after every library exists (folders include each other: harness and
# determinism do; CMake repeats static libraries in a cycle on the link line).
foreach(package IN LISTS _packages)
  if(_pkg_${package}_missing)
    continue()
  endif()
  trickbench_package_target("${package}" target)
  get_target_property(type ${target} TYPE)
  set(scope PUBLIC)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(scope INTERFACE)
  endif()
  foreach(dep IN LISTS _pkg_${package}_deps)
    trickbench_package_target("${dep}" dep_target)
    target_link_libraries(${target} ${scope} ${dep_target})
  endforeach()
endforeach()

# --- a precompiled <torch/torch.h> -----------------------------------------------------
# Parsing torch/torch.h is most of every source's compile time (2.x: ~15 of ~20 s here).
# One precompiled copy, made once, is reused by every library and executable
# (REUSE_FROM: they all compile with the same flags); -Winvalid-pch says when GCC cannot
# use it. TRICKBENCH_PCH=OFF compiles without it.
if(TRICKBENCH_PCH)
  file(WRITE "${CMAKE_BINARY_DIR}/trickbench_pch.cc" "// the precompiled header's own source\n")
  add_library(trickbench_pch OBJECT "${CMAKE_BINARY_DIR}/trickbench_pch.cc")
  target_compile_options(trickbench_pch PRIVATE ${TRICKBENCH_COPTS})
  target_link_libraries(trickbench_pch PRIVATE trickbench::torch trickbench::cuda
                        trickbench::json trickbench::nvtx)
  target_precompile_headers(trickbench_pch PRIVATE <torch/torch.h>)
endif()
function(trickbench_use_pch target)
  if(TRICKBENCH_PCH)
    target_precompile_headers(${target} REUSE_FROM trickbench_pch)
    target_compile_options(${target} PRIVATE -Winvalid-pch)
  endif()
endfunction()
foreach(package IN LISTS _packages)
  trickbench_package_target("${package}" target)
  if(TARGET ${target})
    get_target_property(type ${target} TYPE)
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      trickbench_use_pch(${target})
    endif()
  endif()
endforeach()

# An executable from `sources` linked with the packages they include. Sets <out> to ""
# when it was built, else to the reason it is left out.
function(trickbench_executable name sources out)
  trickbench_scan(FILES ${sources} OUT_PACKAGES packages OUT_EXTERNALS externals)
  list(REMOVE_ITEM packages "benches")
  foreach(ext IN LISTS externals)
    if(NOT TARGET trickbench::${ext})
      set(${out} "needs ${ext}, not found" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  foreach(package IN LISTS packages)
    if(_pkg_${package}_missing)
      set(${out} "${_pkg_${package}_missing}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  add_executable(${name} ${sources})
  target_compile_options(${name} PRIVATE ${TRICKBENCH_COPTS})
  trickbench_use_pch(${name})
  target_include_directories(${name} PRIVATE "${_src}")
  # Every folder it uses, transitively: a self-registering object of any of them is
  # linked into the executable itself (see trickbench_self_registering).
  set(closure ${packages})
  set(i 0)
  list(LENGTH closure n)
  while(i LESS n)
    list(GET closure ${i} package)
    foreach(dep IN LISTS _pkg_${package}_deps)
      if(NOT dep IN_LIST closure)
        list(APPEND closure "${dep}")
      endif()
    endforeach()
    math(EXPR i "${i} + 1")
    list(LENGTH closure n)
  endwhile()
  foreach(package IN LISTS packages)
    trickbench_package_target("${package}" target)
    target_link_libraries(${name} PRIVATE ${target})
  endforeach()
  foreach(package IN LISTS closure)
    trickbench_package_target("${package}" target)
    if(TARGET ${target}_registering)
      target_sources(${name} PRIVATE $<TARGET_OBJECTS:${target}_registering>)
    endif()
  endforeach()
  foreach(ext IN LISTS externals)
    target_link_libraries(${name} PRIVATE trickbench::${ext})
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# --- tricks, run_all, gpu_selftest -------------------------------------------------------
# harness/main.cc, the main() of every trick binary: compiled once, its object linked
# into each (it includes all of the runner's headers: ~20 s a compile).
trickbench_scan(FILES "${_src}/harness/main.cc" OUT_PACKAGES _main_packages OUT_EXTERNALS _main_externals)
add_library(trickbench_main OBJECT "${_src}/harness/main.cc")
target_compile_options(trickbench_main PRIVATE ${TRICKBENCH_COPTS})
trickbench_use_pch(trickbench_main)
target_include_directories(trickbench_main PRIVATE "${_src}")
foreach(package IN LISTS _main_packages)
  trickbench_package_target("${package}" target)
  target_link_libraries(trickbench_main PUBLIC ${target})
endforeach()

set(TRICKBENCH_TRICKS)
set(_skipped_text "")
set(_tricks_text "")
foreach(f IN LISTS _trick_files)
  get_filename_component(id "${f}" NAME_WE)
  set(sources "${f}")
  if(TRICKBENCH_WITH_CUDA AND EXISTS "${_src}/benches/${id}_cuda.cc")
    list(APPEND sources "${_src}/benches/${id}_cuda.cc")
  endif()
  trickbench_executable(${id} "${sources}" why)
  if(why)
    message(STATUS "trickbench: ${id} left out: ${why}")
    string(APPEND _skipped_text "${id}\t${why}\n")
    continue()
  endif()
  target_link_libraries(${id} PRIVATE trickbench_main)
  # benches/<id>: run_all names a trick by its binary's file name.
  set_target_properties(${id} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/benches")
  list(APPEND TRICKBENCH_TRICKS ${id})
  string(APPEND _tricks_text "${CMAKE_BINARY_DIR}/benches/${id}\n")
endforeach()
add_custom_target(tricks DEPENDS ${TRICKBENCH_TRICKS})

trickbench_executable(run_all "${_src}/run_all/main.cc" why)
trickbench_executable(gpu_selftest "${_src}/harness/gpu_selftest.cc" why)
# The report tools: reports/<name>_main.cc -> <name> (report, compare).
foreach(f IN LISTS _report_mains)
  get_filename_component(name "${f}" NAME_WE)
  string(REGEX REPLACE "_main$" "" name "${name}")
  trickbench_executable(${name} "${f}" why)
  if(why)
    message(STATUS "trickbench: ${name} left out: ${why}")
  endif()
endforeach()

# The reproducibility traces' diff (determinism/diff_main.cc, `bazel run //determinism:diff`):
# what trickbench_reproducibility_test runs (cmake/TrickbenchReproducibility.cmake).
trickbench_executable(trace_diff "${_src}/determinism/diff_main.cc" why)

# For tools/device_check.sh and anyone scripting the build: which tricks were configured,
# which were left out and why, and what the build was made from.
file(WRITE "${CMAKE_BINARY_DIR}/tricks.txt" "${_tricks_text}")
file(WRITE "${CMAKE_BINARY_DIR}/skipped_tricks.txt" "${_skipped_text}")
list(LENGTH TRICKBENCH_TRICKS _n_tricks)
set(_info "torch: ${TRICKBENCH_TORCH_ORIGIN}
cuda: ${TRICKBENCH_WITH_CUDA} ${_cuda_why}
c++ standard: ${CMAKE_CXX_STANDARD}
nlohmann/json: ${TRICKBENCH_JSON_ORIGIN}
nvtx: ${TRICKBENCH_NVTX_ORIGIN}
packages: ${_packages}
tricks configured: ${_n_tricks}
")
file(WRITE "${CMAKE_BINARY_DIR}/build_info.txt" "${_info}")
message(STATUS "trickbench:\n${_info}")
