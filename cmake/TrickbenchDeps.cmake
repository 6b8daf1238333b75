# The libraries trickbench builds against, as interface targets:
#   trickbench::torch      LibTorch (LIBTORCH_HOME, else .venv's wheel, else Debian's)
#   trickbench::cuda       LibTorch's CUDA half and the CUDA runtime (empty without CUDA)
#   trickbench::json       nlohmann/json (system, else third_party/nlohmann_json)
#   trickbench::nvtx       NVTX3 headers with TRICKBENCH_HAVE_NVTX=1, or nothing
#   trickbench::opencv, ::lmdb, ::jpeg  when found (the data-pipeline tricks)
#   trickbench::gloo       Gloo's headers and USE_C10D_GLOO, when found (distributed/)
# and TRICKBENCH_WITH_CUDA (ON when LibTorch has CUDA and the CUDA runtime is found).
# Nothing is downloaded: a GPU host without network builds from what is here.

find_package(Threads REQUIRED)

# --- LibTorch -------------------------------------------------------------------------
# Found as a folder (include/, lib/), the same way the Bazel build does, not through
# LibTorch's TorchConfig.cmake: a wheel's config requires nvcc and cuDNN to configure at
# all, and on a machine that also has Debian's libtorch-dev its find_library picks
# /usr/lib's 1.13 libraries beside the wheel's 2.x headers. In order:
#   LIBTORCH_HOME (cache or environment)          a LibTorch folder or a wheel's torch/
#   <source>/.venv/lib/python3*/site-packages/torch  what tools/install_deps.sh installs
#   Debian's libtorch-dev                          /usr/include/torch, /usr/lib
if(NOT LIBTORCH_HOME)
  file(GLOB _venv_torch LIST_DIRECTORIES true
       "${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/torch")
  foreach(_candidate IN LISTS _venv_torch)
    if(EXISTS "${_candidate}/include/torch" AND NOT LIBTORCH_HOME)
      set(LIBTORCH_HOME "${_candidate}" CACHE PATH "LibTorch folder (found in .venv)" FORCE)
    endif()
  endforeach()
endif()

add_library(trickbench_torch INTERFACE)
add_library(trickbench::torch ALIAS trickbench_torch)
if(LIBTORCH_HOME)
  if(NOT EXISTS "${LIBTORCH_HOME}/include/torch" OR NOT EXISTS "${LIBTORCH_HOME}/lib")
    message(FATAL_ERROR "LIBTORCH_HOME=${LIBTORCH_HOME} is not a LibTorch folder or a PyTorch "
                        "wheel's torch/ folder (needs include/torch and lib/)")
  endif()
  set(_torch_include "${LIBTORCH_HOME}/include")
  set(_torch_lib "${LIBTORCH_HOME}/lib")
  set(TRICKBENCH_TORCH_ORIGIN "${LIBTORCH_HOME}")
elseif(EXISTS /usr/include/torch/csrc/api/include/torch/torch.h)
  set(_torch_include "/usr/include")
  set(_torch_lib "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}")
  set(TRICKBENCH_TORCH_ORIGIN "Debian libtorch-dev")
else()
  message(FATAL_ERROR "LibTorch not found: run tools/install_deps.sh (the torch wheel in "
                      ".venv), set LIBTORCH_HOME to a LibTorch folder or a PyTorch wheel's "
                      "torch/ folder, or install Debian's libtorch-dev")
endif()
foreach(_lib torch_cpu c10)
  find_library(TRICKBENCH_${_lib}_LIBRARY ${_lib} PATHS "${_torch_lib}" NO_DEFAULT_PATH)
  if(NOT TRICKBENCH_${_lib}_LIBRARY)
    message(FATAL_ERROR "LibTorch at ${TRICKBENCH_TORCH_ORIGIN}: no lib${_lib}.so in ${_torch_lib}")
  endif()
endforeach()
target_include_directories(trickbench_torch SYSTEM INTERFACE
  "${_torch_include}" "${_torch_include}/torch/csrc/api/include")
# libtorch_cpu registers its operators from static initialisers: keep it linked even
# where no symbol of it is used directly. (libtorch.so itself is left out: in a wheel
# it only NEEDS libtorch_cuda; see third_party/libtorch/repo.bzl.) One token per
# library: CMake de-duplicates repeated separate -Wl,--no-as-needed/--as-needed items,
# which would leave a later library after a lone --as-needed.
function(trickbench_link_always target)
  foreach(lib IN LISTS ARGN)
    target_link_libraries(${target} INTERFACE "-Wl,--no-as-needed,${lib},--as-needed")
  endforeach()
endfunction()
trickbench_link_always(trickbench_torch "${TRICKBENCH_torch_cpu_LIBRARY}" "${TRICKBENCH_c10_LIBRARY}")
target_link_libraries(trickbench_torch INTERFACE Threads::Threads)
set_property(TARGET trickbench_torch APPEND PROPERTY INTERFACE_LINK_OPTIONS "LINKER:-rpath,${_torch_lib}")

# Its version, from the headers (2.x: torch/headeronly/version.h; 1.13: torch/version.h).
set(Torch_VERSION "")
foreach(_version_h "${_torch_include}/torch/headeronly/version.h"
                   "${_torch_include}/torch/csrc/api/include/torch/version.h")
  if(NOT Torch_VERSION AND EXISTS "${_version_h}")
    file(STRINGS "${_version_h}" _v REGEX "#define TORCH_VERSION_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3" Torch_VERSION "${_v}")
  endif()
endforeach()
string(APPEND TRICKBENCH_TORCH_ORIGIN " (${Torch_VERSION})")

# The libstdc++ ABI: wheels from 2.7 on (and Debian's) use the default, new one; an older
# pre-cxx11-ABI LibTorch says so in its TorchConfig.cmake. Every object of the build
# must match it, so it goes on globally.
set(_torch_config "${LIBTORCH_HOME}/share/cmake/Torch/TorchConfig.cmake")
if(LIBTORCH_HOME AND EXISTS "${_torch_config}")
  file(STRINGS "${_torch_config}" _old_abi REGEX "_GLIBCXX_USE_CXX11_ABI=0")
  if(_old_abi)
    add_compile_definitions(_GLIBCXX_USE_CXX11_ABI=0)
  endif()
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
# The CUDA half of LibTorch (libtorch_cuda, libc10_cuda beside libtorch_cpu) and the CUDA
# runtime (CUDAToolkit: CUDA_HOME, else /usr/local/cuda).
if(NOT DEFINED ENV{CUDA_HOME} AND EXISTS /usr/local/cuda/bin/nvcc AND NOT CUDAToolkit_ROOT)
  set(CUDAToolkit_ROOT /usr/local/cuda)
elseif(DEFINED ENV{CUDA_HOME} AND NOT CUDAToolkit_ROOT)
  set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}")
endif()
set(TRICKBENCH_WITH_CUDA OFF)
set(_cuda_why "LibTorch has no CUDA (no libtorch_cuda.so beside libtorch_cpu.so)")
find_library(TRICKBENCH_torch_cuda_LIBRARY torch_cuda PATHS "${_torch_lib}" NO_DEFAULT_PATH)
find_library(TRICKBENCH_c10_cuda_LIBRARY c10_cuda PATHS "${_torch_lib}" NO_DEFAULT_PATH)
if(TRICKBENCH_torch_cuda_LIBRARY AND TRICKBENCH_c10_cuda_LIBRARY AND NOT TRICKBENCH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  if(TARGET CUDA::cudart)
    set(TRICKBENCH_WITH_CUDA ON)
  else()
    set(_cuda_why "LibTorch has CUDA but the CUDA toolkit (cuda_runtime_api.h, libcudart) was not found; set CUDA_HOME")
  endif()
endif()
if(TRICKBENCH_CUDA STREQUAL "OFF")
  set(TRICKBENCH_WITH_CUDA OFF)
  set(_cuda_why "TRICKBENCH_CUDA=OFF")
elseif(TRICKBENCH_CUDA STREQUAL "ON" AND NOT TRICKBENCH_WITH_CUDA)
  message(FATAL_ERROR "TRICKBENCH_CUDA=ON but ${_cuda_why}")
endif()
# trickbench::cuda: what a *_cuda.cc source needs (the CUDA runtime's headers) and what
# every binary of a CUDA build links (LibTorch's CUDA half, kept linked: its kernels
# register from static initialisers). Empty without CUDA.
add_library(trickbench_cuda INTERFACE)
add_library(trickbench::cuda ALIAS trickbench_cuda)
if(TRICKBENCH_WITH_CUDA)
  # For the sources that call into a *_cuda.cc under #ifdef. (Bazel gives it to those
  # sources alone, to share the other objects with its CPU build; a CMake build folder
  # is one configuration, so here it can go on globally.)
  add_compile_definitions(TRICKBENCH_CUDA=1)
  trickbench_link_always(trickbench_cuda "${TRICKBENCH_torch_cuda_LIBRARY}" "${TRICKBENCH_c10_cuda_LIBRARY}")
  target_link_libraries(trickbench_cuda INTERFACE CUDA::cudart)
  # libtorch_cuda NEEDS cuFile, cuSPARSELt and NVSHMEM, which a CUDA toolkit does not
  # carry (a GPU host's torch install has them as nvidia-* wheels, found at run time
  # through libtorch_cuda's RUNPATH). The toolkit's own libraries are checked via
  # -rpath-link; symbols LibTorch leaves to those three stay for the loader to resolve.
  # trickbench's own objects are still checked against everything they use.
  target_link_options(trickbench_cuda INTERFACE
    "LINKER:--allow-shlib-undefined" "LINKER:-rpath-link,${CUDAToolkit_LIBRARY_DIR}")
  set(_cuda_why "CUDA ${CUDAToolkit_VERSION} at ${CUDAToolkit_LIBRARY_DIR}")
endif()

# --- nlohmann/json: the system's, else the copy in third_party/ ---------------------------
if(NOT TRICKBENCH_BUNDLED_DEPS)
  find_package(nlohmann_json 3.10 CONFIG QUIET)
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
# c10d's ProcessGroupGloo (distributed/, ddp_vs_dp): LibTorch has its symbols (a build with
# USE_GLOO, as the wheels and Debian's are), its header is behind USE_C10D_GLOO, and it
# includes Gloo's headers, which the wheel does not ship: Debian's libgloo-dev has them
# (2022's Gloo; 2.11's ProcessGroupGloo.hpp compiles against them, and distributed/ only passes
# Gloo objects LibTorch itself creates).
find_path(TRICKBENCH_GLOO_INCLUDE gloo/rendezvous/store.h HINTS "${_torch_include}")
if(TRICKBENCH_GLOO_INCLUDE)
  add_library(trickbench_gloo INTERFACE)
  add_library(trickbench::gloo ALIAS trickbench_gloo)
  target_include_directories(trickbench_gloo SYSTEM INTERFACE "${TRICKBENCH_GLOO_INCLUDE}")
  target_compile_definitions(trickbench_gloo INTERFACE USE_C10D_GLOO)
endif()
find_path(TRICKBENCH_LMDB_INCLUDE lmdb.h)
find_library(TRICKBENCH_LMDB_LIBRARY lmdb)
if(TRICKBENCH_LMDB_INCLUDE AND TRICKBENCH_LMDB_LIBRARY)
  add_library(trickbench_lmdb INTERFACE)
  add_library(trickbench::lmdb ALIAS trickbench_lmdb)
  target_include_directories(trickbench_lmdb SYSTEM INTERFACE "${TRICKBENCH_LMDB_INCLUDE}")
  target_link_libraries(trickbench_lmdb INTERFACE "${TRICKBENCH_LMDB_LIBRARY}")
endif()
# libjpeg-turbo (decoder_choice calls its API directly; OpenCV links the same library).
find_path(TRICKBENCH_JPEG_INCLUDE jpeglib.h)
find_library(TRICKBENCH_JPEG_LIBRARY jpeg)
if(TRICKBENCH_JPEG_INCLUDE AND TRICKBENCH_JPEG_LIBRARY)
  add_library(trickbench_jpeg INTERFACE)
  add_library(trickbench::jpeg ALIAS trickbench_jpeg)
  target_include_directories(trickbench_jpeg SYSTEM INTERFACE "${TRICKBENCH_JPEG_INCLUDE}")
  target_link_libraries(trickbench_jpeg INTERFACE "${TRICKBENCH_JPEG_LIBRARY}")
endif()
