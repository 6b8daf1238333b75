# The libraries trickbench builds against, as interface targets:
#   trickbench::torch      LibTorch (LIBTORCH_HOME, else Debian's libtorch-dev)
#   trickbench::benchmark  Google Benchmark (system, else third_party/benchmark)
#   trickbench::json       nlohmann/json (system, else third_party/nlohmann_json)
#   trickbench::nvtx       NVTX3 headers with TRICKBENCH_HAVE_NVTX=1, or nothing
#   trickbench::opencv, trickbench::lmdb   when found (the data-pipeline tricks)
# and TRICKBENCH_WITH_CUDA (ON when LibTorch has CUDA and the CUDA runtime is found).
# Nothing is downloaded: a GPU host without network builds from what is here.

find_package(Threads REQUIRED)

# --- LibTorch -------------------------------------------------------------------------
if(LIBTORCH_HOME)
  if(NOT EXISTS "${LIBTORCH_HOME}/include/torch")
    message(FATAL_ERROR "LIBTORCH_HOME=${LIBTORCH_HOME} is not a LibTorch folder or a PyTorch "
                        "wheel's torch/ folder (no include/torch in it)")
  endif()
  list(PREPEND CMAKE_PREFIX_PATH "${LIBTORCH_HOME}/share/cmake" "${LIBTORCH_HOME}")
endif()
# A CUDA LibTorch's config looks for the CUDA toolkit itself; help it find the usual one.
if(NOT DEFINED ENV{CUDA_HOME} AND EXISTS /usr/local/cuda/bin/nvcc AND NOT CMAKE_CUDA_COMPILER)
  set(ENV{CUDA_HOME} /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()

add_library(trickbench_torch INTERFACE)
add_library(trickbench::torch ALIAS trickbench_torch)
find_package(Torch QUIET)
if(Torch_FOUND)
  target_link_libraries(trickbench_torch INTERFACE ${TORCH_LIBRARIES})
  # TORCH_CXX_FLAGS carries the libstdc++ ABI LibTorch was built with: every object of
  # the build (Google Benchmark's too) must use the same, so it goes on globally.
  separate_arguments(_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  add_compile_options(${_torch_flags})
  set(TRICKBENCH_TORCH_ORIGIN "Torch ${Torch_VERSION} from ${Torch_DIR}")
elseif(NOT LIBTORCH_HOME AND EXISTS /usr/include/torch/csrc/api/include/torch/torch.h)
  # Debian's libtorch-dev without its CMake files: the same flags as the Bazel build.
  target_include_directories(trickbench_torch SYSTEM INTERFACE /usr/include/torch/csrc/api/include)
  target_link_libraries(trickbench_torch INTERFACE
    -Wl,--no-as-needed torch torch_cpu c10 -Wl,--as-needed Threads::Threads)
  set(Torch_VERSION "")
  set(TRICKBENCH_TORCH_ORIGIN "Debian libtorch-dev (no TorchConfig.cmake; manual target)")
else()
  message(FATAL_ERROR "LibTorch not found: set LIBTORCH_HOME to a LibTorch folder or a PyTorch "
                      "wheel's torch/ folder, or install Debian's libtorch-dev (tools/install_deps.sh)")
endif()

# PyTorch 2.13 and later require C++20 in their headers; older ones build as C++17.
if(NOT CMAKE_CXX_STANDARD)
  if(Torch_VERSION AND Torch_VERSION VERSION_GREATER_EQUAL 2.13)
    set(CMAKE_CXX_STANDARD 20)
  else()
    set(CMAKE_CXX_STANDARD 17)
  endif()
endif()
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)

# --- CUDA -----------------------------------------------------------------------------
set(TRICKBENCH_WITH_CUDA OFF)
set(_cuda_why "LibTorch has no CUDA (no torch_cuda library)")
# The CUDA half of LibTorch: its imported target, else the library file beside libtorch.
set(_torch_cuda_link "")
if(TARGET torch_cuda)
  set(_torch_cuda_link "$<TARGET_FILE:torch_cuda>")
elseif(TORCH_INSTALL_PREFIX OR LIBTORCH_HOME)
  find_library(TRICKBENCH_TORCH_CUDA_LIBRARY torch_cuda
               PATHS "${TORCH_INSTALL_PREFIX}/lib" "${LIBTORCH_HOME}/lib" NO_DEFAULT_PATH)
  find_library(TRICKBENCH_C10_CUDA_LIBRARY c10_cuda
               PATHS "${TORCH_INSTALL_PREFIX}/lib" "${LIBTORCH_HOME}/lib" NO_DEFAULT_PATH)
  if(TRICKBENCH_TORCH_CUDA_LIBRARY AND TRICKBENCH_C10_CUDA_LIBRARY)
    set(_torch_cuda_link "${TRICKBENCH_TORCH_CUDA_LIBRARY}")
    target_link_libraries(trickbench_torch INTERFACE "${TRICKBENCH_C10_CUDA_LIBRARY}")
  endif()
endif()
if(_torch_cuda_link)
  if(NOT TARGET CUDA::cudart)
    find_package(CUDAToolkit QUIET)
  endif()
  if(TARGET CUDA::cudart)
    set(TRICKBENCH_WITH_CUDA ON)
  else()
    set(_cuda_why "LibTorch has CUDA but the CUDA runtime (CUDAToolkit) was not found; set CUDA_HOME")
  endif()
endif()
if(TRICKBENCH_CUDA STREQUAL "OFF")
  set(TRICKBENCH_WITH_CUDA OFF)
  set(_cuda_why "TRICKBENCH_CUDA=OFF")
elseif(TRICKBENCH_CUDA STREQUAL "ON" AND NOT TRICKBENCH_WITH_CUDA)
  message(FATAL_ERROR "TRICKBENCH_CUDA=ON but ${_cuda_why}")
endif()
if(TRICKBENCH_WITH_CUDA)
  add_compile_definitions(TRICKBENCH_CUDA=1)
  # libtorch_cuda registers its kernels from static initialisers: keep it linked even
  # though no symbol of it is referenced directly (LibTorch's config does the same).
  target_link_libraries(trickbench_torch INTERFACE
    "-Wl,--no-as-needed,${_torch_cuda_link},--as-needed" CUDA::cudart)
  set(_cuda_why "")
endif()

# --- Google Benchmark and nlohmann/json: system, else the copies in third_party/ ----------
if(NOT TRICKBENCH_BUNDLED_DEPS)
  find_package(benchmark 1.7 CONFIG QUIET)
  find_package(nlohmann_json 3.10 CONFIG QUIET)
endif()
add_library(trickbench_benchmark_if INTERFACE)
add_library(trickbench::benchmark ALIAS trickbench_benchmark_if)
if(TARGET benchmark::benchmark AND NOT TRICKBENCH_BUNDLED_DEPS)
  target_link_libraries(trickbench_benchmark_if INTERFACE benchmark::benchmark)
  set(TRICKBENCH_BENCHMARK_ORIGIN "system ${benchmark_VERSION}")
else()
  set(_gb "${PROJECT_SOURCE_DIR}/third_party/benchmark")
  file(GLOB _gb_srcs "${_gb}/src/*.cc")
  list(FILTER _gb_srcs EXCLUDE REGEX "benchmark_main\\.cc$")
  add_library(trickbench_gbench STATIC ${_gb_srcs})
  target_include_directories(trickbench_gbench PUBLIC "${_gb}/include" PRIVATE "${_gb}/src")
  target_compile_definitions(trickbench_gbench PUBLIC BENCHMARK_STATIC_DEFINE PRIVATE HAVE_STD_REGEX)
  target_link_libraries(trickbench_gbench PRIVATE Threads::Threads)
  find_library(_rt rt)
  if(_rt)
    target_link_libraries(trickbench_gbench PRIVATE ${_rt})
  endif()
  target_link_libraries(trickbench_benchmark_if INTERFACE trickbench_gbench)
  set(TRICKBENCH_BENCHMARK_ORIGIN "third_party/benchmark (1.7.1, built here)")
endif()

add_library(trickbench_json INTERFACE)
add_library(trickbench::json ALIAS trickbench_json)
if(TARGET nlohmann_json::nlohmann_json AND NOT TRICKBENCH_BUNDLED_DEPS)
  target_link_libraries(trickbench_json INTERFACE nlohmann_json::nlohmann_json)
  set(TRICKBENCH_JSON_ORIGIN "system ${nlohmann_json_VERSION}")
else()
  target_include_directories(trickbench_json SYSTEM INTERFACE
    "${PROJECT_SOURCE_DIR}/third_party/nlohmann_json/include")
  set(TRICKBENCH_JSON_ORIGIN "third_party/nlohmann_json (3.11.2)")
endif()

# --- NVTX3 (header-only): ranges in Nsight Systems when the headers are here -----------
add_library(trickbench_nvtx INTERFACE)
add_library(trickbench::nvtx ALIAS trickbench_nvtx)
set(_nvtx_hints ${CUDAToolkit_INCLUDE_DIRS})
if(DEFINED ENV{CUDA_HOME})
  list(APPEND _nvtx_hints "$ENV{CUDA_HOME}/include")
endif()
list(APPEND _nvtx_hints /usr/local/cuda/include)
find_path(TRICKBENCH_NVTX_INCLUDE nvtx3/nvToolsExt.h HINTS ${_nvtx_hints} NO_DEFAULT_PATH)
if(TRICKBENCH_NVTX_INCLUDE)
  # Only nvtx3/ is exposed (a link in the build folder), not the rest of the toolkit's
  # headers, so a CPU build cannot come to depend on CUDA headers by accident.
  set(_nvtx_dir "${CMAKE_BINARY_DIR}/nvtx_include")
  file(MAKE_DIRECTORY "${_nvtx_dir}")
  if(NOT EXISTS "${_nvtx_dir}/nvtx3")
    file(CREATE_LINK "${TRICKBENCH_NVTX_INCLUDE}/nvtx3" "${_nvtx_dir}/nvtx3" SYMBOLIC)
  endif()
  target_include_directories(trickbench_nvtx SYSTEM INTERFACE "${_nvtx_dir}")
  target_compile_definitions(trickbench_nvtx INTERFACE TRICKBENCH_HAVE_NVTX=1)
  target_link_libraries(trickbench_nvtx INTERFACE ${CMAKE_DL_LIBS})
  set(TRICKBENCH_NVTX_ORIGIN "${TRICKBENCH_NVTX_INCLUDE}/nvtx3")
else()
  set(TRICKBENCH_NVTX_ORIGIN "not found (ranges compile to nothing)")
endif()

# --- Optional libraries of some packages (see TrickbenchTargets.cmake's externals) ------
find_package(OpenCV QUIET COMPONENTS core imgcodecs imgproc)
if(OpenCV_FOUND)
  add_library(trickbench_opencv INTERFACE)
  add_library(trickbench::opencv ALIAS trickbench_opencv)
  target_include_directories(trickbench_opencv SYSTEM INTERFACE ${OpenCV_INCLUDE_DIRS})
  target_link_libraries(trickbench_opencv INTERFACE ${OpenCV_LIBS})
endif()
find_path(TRICKBENCH_LMDB_INCLUDE lmdb.h)
find_library(TRICKBENCH_LMDB_LIBRARY lmdb)
if(TRICKBENCH_LMDB_INCLUDE AND TRICKBENCH_LMDB_LIBRARY)
  add_library(trickbench_lmdb INTERFACE)
  add_library(trickbench::lmdb ALIAS trickbench_lmdb)
  target_include_directories(trickbench_lmdb SYSTEM INTERFACE "${TRICKBENCH_LMDB_INCLUDE}")
  target_link_libraries(trickbench_lmdb INTERFACE "${TRICKBENCH_LMDB_LIBRARY}")
endif()
