# LibTorch without TorchConfig.cmake's CUDA toolkit requirements.
#
# The PyPI torch wheel (and a preinstalled torch on a GPU host) carries a full LibTorch.
# Its TorchConfig.cmake insists on a matching CUDA toolkit when the wheel was built with
# CUDA; we only need headers and shared libraries (CUDA kernels come precompiled inside
# libtorch_cuda.so), so we import them directly. This builds the same on a CPU-only box
# with the CUDA wheel, on a GPU host with torch preinstalled, and with a plain LibTorch zip.
#
# Torch is located from, in order: -DRIPPLEKV_TORCH_ROOT=<dir containing lib/ and include/>,
# a CMAKE_PREFIX_PATH entry holding Torch/TorchConfig.cmake (torch.utils.cmake_prefix_path),
# or `python3 -c "import torch"` with RIPPLEKV_PYTHON (default: .venv/bin/python, python3).

set(RIPPLEKV_PYTHON "" CACHE FILEPATH "Python whose torch to build against (optional)")
set(RIPPLEKV_TORCH_ROOT "" CACHE PATH "LibTorch root (contains lib/ and include/)")

if(NOT RIPPLEKV_TORCH_ROOT)
  foreach(prefix IN LISTS CMAKE_PREFIX_PATH)
    if(EXISTS "${prefix}/Torch/TorchConfig.cmake")
      get_filename_component(RIPPLEKV_TORCH_ROOT "${prefix}/../.." ABSOLUTE)
      break()
    endif()
  endforeach()
endif()
if(NOT RIPPLEKV_TORCH_ROOT)
  set(_py_candidates ${RIPPLEKV_PYTHON} "${CMAKE_SOURCE_DIR}/.venv/bin/python" python3)
  foreach(py IN LISTS _py_candidates)
    if(NOT py)
      continue()
    endif()
    execute_process(COMMAND ${py} -c "import os, torch; print(os.path.dirname(torch.__file__))"
      OUTPUT_VARIABLE _root RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_rc EQUAL 0 AND EXISTS "${_root}/lib")
      set(RIPPLEKV_TORCH_ROOT "${_root}")
      break()
    endif()
  endforeach()
endif()
if(NOT RIPPLEKV_TORCH_ROOT OR NOT EXISTS "${RIPPLEKV_TORCH_ROOT}/include/ATen/ATen.h")
  message(FATAL_ERROR "LibTorch not found. Run scripts/setup.sh (installs the pinned torch wheel "
    "into .venv), or pass -DCMAKE_PREFIX_PATH=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)') "
    "or -DRIPPLEKV_TORCH_ROOT=/path/to/libtorch.")
endif()
message(STATUS "ripplekv: LibTorch at ${RIPPLEKV_TORCH_ROOT}")

# The C++ ABI LibTorch was built with (TorchConfig.cmake records it in TORCH_CXX_FLAGS).
set(_abi 1)
set(_torch_config "${RIPPLEKV_TORCH_ROOT}/share/cmake/Torch/TorchConfig.cmake")
if(EXISTS "${_torch_config}")
  file(STRINGS "${_torch_config}" _abi_line REGEX "_GLIBCXX_USE_CXX11_ABI=[01]")
  if(_abi_line MATCHES "_GLIBCXX_USE_CXX11_ABI=([01])")
    set(_abi ${CMAKE_MATCH_1})
  endif()
endif()

set(_torch_libs)
foreach(lib c10 torch_cpu torch c10_cuda torch_cuda)
  find_library(_lib_${lib} NAMES ${lib} PATHS "${RIPPLEKV_TORCH_ROOT}/lib" NO_DEFAULT_PATH)
  if(_lib_${lib})
    list(APPEND _torch_libs "${_lib_${lib}}")
  endif()
endforeach()
if(_lib_torch_cuda)
  message(STATUS "ripplekv: LibTorch has CUDA (libtorch_cuda.so): --device cuda is available at run time")
endif()

add_library(ripplekv_torch_deps INTERFACE)
target_include_directories(ripplekv_torch_deps SYSTEM INTERFACE
  "${RIPPLEKV_TORCH_ROOT}/include"
  "${RIPPLEKV_TORCH_ROOT}/include/torch/csrc/api/include")
target_compile_definitions(ripplekv_torch_deps INTERFACE _GLIBCXX_USE_CXX11_ABI=${_abi})
# --no-as-needed: libtorch_cuda.so registers the CUDA backend from static initialisers, so it
# must stay linked although no symbol of it is referenced directly.
target_link_libraries(ripplekv_torch_deps INTERFACE
  "-Wl,--no-as-needed" ${_torch_libs} "-Wl,--as-needed" pthread)
list(APPEND CMAKE_BUILD_RPATH "${RIPPLEKV_TORCH_ROOT}/lib")
list(APPEND CMAKE_INSTALL_RPATH "${RIPPLEKV_TORCH_ROOT}/lib")
