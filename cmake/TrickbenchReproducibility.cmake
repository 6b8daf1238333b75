# The reproducibility gate for CMake users: the twin of the Bazel rule
# reproducibility_test (determinism/defs.bzl), around your own training executable.
#
#   add_subdirectory(path/to/trickbench trickbench EXCLUDE_FROM_ALL)
#   add_executable(my_training my_training.cc)
#   target_link_libraries(my_training PRIVATE trickbench::determinism)
#   enable_testing()
#   trickbench_reproducibility_test(NAME my_training_reproducible TARGET my_training
#                                   WORKERS 2 0 THREADS 1 2 RESUME_AT 3 5)
#
# ctest then runs determinism/gate_runner.sh around the executable: RUNS fresh processes
# (default 2) bitwise, each other loader worker count bitwise, each other thread count
# within RTOL/ATOL (default 1e-5/1e-8), a stop and a resume at each RESUME_AT step
# bitwise, and with DETERMINISM_COST one more run that times its step in deterministic
# mode; the first value of WORKERS and THREADS is the base run's. The executable does
# what determinism/gate_request.h says of the variables those tiers set. A failing tier
# prints its divergence report, down to the first op whose output differs; the traces
# are kept in <build>/<NAME>.traces/. ARGS are passed to the executable.
#
# Also here, for a planted-failure test of your own (examples/my_training): the target
# trace_diff (`trace_diff A.json B.json`, as `bazel run //determinism:diff`) and
# TRICKBENCH_GATE_RUNNER, the runner's path.

set(TRICKBENCH_GATE_RUNNER "${PROJECT_SOURCE_DIR}/determinism/gate_runner.sh"
    CACHE INTERNAL "trickbench's reproducibility gate runner")

# What a training links to be gated: the determinism package (the recorder, the gate's
# request, seeding, per-sample seeded data, the planted nondeterminism), with the C++
# standard trickbench's headers need.
if(TARGET trickbench_pkg_determinism AND NOT TARGET trickbench::determinism)
  add_library(trickbench::determinism ALIAS trickbench_pkg_determinism)
  target_compile_features(trickbench_pkg_determinism PUBLIC cxx_std_${CMAKE_CXX_STANDARD})
endif()

function(trickbench_reproducibility_test)
  cmake_parse_arguments(ARG "DETERMINISM_COST" "NAME;TARGET;RUNS;RTOL;ATOL"
                        "WORKERS;THREADS;RESUME_AT;ARGS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "trickbench_reproducibility_test: unknown arguments "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME OR NOT ARG_TARGET)
    message(FATAL_ERROR "trickbench_reproducibility_test: NAME and TARGET are required")
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "trickbench_reproducibility_test(${ARG_NAME}): no target ${ARG_TARGET}")
  endif()
  set(args "--binary=$<TARGET_FILE:${ARG_TARGET}>" "--diff=$<TARGET_FILE:trace_diff>")
  if(ARG_RUNS)
    list(APPEND args "--runs=${ARG_RUNS}")
  endif()
  if(ARG_RTOL)
    list(APPEND args "--rtol=${ARG_RTOL}")
  endif()
  if(ARG_ATOL)
    list(APPEND args "--atol=${ARG_ATOL}")
  endif()
  foreach(tier WORKERS THREADS RESUME_AT)
    if(ARG_${tier})
      string(TOLOWER "${tier}" flag)
      string(JOIN "," counts ${ARG_${tier}})
      list(APPEND args "--${flag}=${counts}")
    endif()
  endforeach()
  if(ARG_DETERMINISM_COST)
    list(APPEND args "--determinism_cost")
  endif()
  if(ARG_ARGS)
    list(APPEND args -- ${ARG_ARGS})
  endif()
  add_test(NAME ${ARG_NAME} COMMAND bash "${TRICKBENCH_GATE_RUNNER}" ${args})
  set_tests_properties(${ARG_NAME} PROPERTIES ENVIRONMENT
                       "TEST_UNDECLARED_OUTPUTS_DIR=${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}.traces")
  # Building the training builds the diff its test runs (trickbench may be EXCLUDE_FROM_ALL).
  add_dependencies(${ARG_TARGET} trace_diff)
endfunction()
