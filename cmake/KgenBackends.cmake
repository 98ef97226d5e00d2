# KgenBackends.cmake -- which GPU backends this build supports.
#
# KGEN_WITH_CUDA: NVRTC is found (CUDA::nvrtc), so kgen can compile CUDA
#   kernels for any --arch without a GPU.  Running them needs no build-time
#   support: kgrt loads libcuda.so.1 with dlopen when it is there.
# KGEN_WITH_OPENCL: the OpenCL headers and ICD loader are found; kgrt links
#   the loader (OpenCL::OpenCL) and compiles kernels with clBuildProgram.
# Both default to "found"; forcing one ON when it is missing is an error.
# Each adds a directory-wide compile definition KGEN_WITH_<X>=1.

find_package(CUDAToolkit QUIET)
set(_kgen_have_cuda OFF)
if(CUDAToolkit_FOUND AND TARGET CUDA::nvrtc)
  set(_kgen_have_cuda ON)
endif()

find_package(OpenCL QUIET)
set(_kgen_have_opencl OFF)
if(OpenCL_FOUND AND TARGET OpenCL::OpenCL)
  set(_kgen_have_opencl ON)
endif()

option(KGEN_WITH_CUDA "Compile CUDA kernels with NVRTC" ${_kgen_have_cuda})
option(KGEN_WITH_OPENCL "Compile and run OpenCL kernels" ${_kgen_have_opencl})

if(KGEN_WITH_CUDA)
  if(NOT _kgen_have_cuda)
    message(FATAL_ERROR "KGEN_WITH_CUDA=ON but the CUDA toolkit with NVRTC "
            "was not found (set CUDAToolkit_ROOT, or -DKGEN_WITH_CUDA=OFF)")
  endif()
  add_compile_definitions(KGEN_WITH_CUDA=1)
  # NVRTC alone.  CUDA::nvrtc also drags in CUDA::cuda_driver, which would
  # make kgen need libcuda.so.1 to start; the driver is only ever dlopen'd.
  add_library(kgen::nvrtc INTERFACE IMPORTED)
  target_link_libraries(kgen::nvrtc INTERFACE "${CUDA_nvrtc_LIBRARY}")
  target_include_directories(kgen::nvrtc INTERFACE ${CUDAToolkit_INCLUDE_DIRS})
  # Where NVRTC finds cuda_fp16.h & co. at run time (compiler/compile.c
  # falls back to $CUDA_HOME/include and /usr/local/cuda/include).
  list(GET CUDAToolkit_INCLUDE_DIRS 0 _kgen_cuda_inc)
  target_compile_definitions(kgen::nvrtc INTERFACE
    KGEN_CUDA_INCLUDE_DIR="${_kgen_cuda_inc}")
endif()

if(KGEN_WITH_OPENCL)
  if(NOT _kgen_have_opencl)
    message(FATAL_ERROR "KGEN_WITH_OPENCL=ON but OpenCL was not found "
            "(install ocl-icd-opencl-dev and opencl-headers, or "
            "-DKGEN_WITH_OPENCL=OFF)")
  endif()
  add_compile_definitions(KGEN_WITH_OPENCL=1)
endif()

function(kgen_print_summary)
  message(STATUS "")
  message(STATUS "kgen ${PROJECT_VERSION} configuration")
  message(STATUS "  build type       ${CMAKE_BUILD_TYPE}")
  message(STATUS "  C compiler       ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")
  if(KGEN_WITH_CUDA)
    message(STATUS "  CUDA (NVRTC)     ON  (toolkit ${CUDAToolkit_VERSION}, ${CUDAToolkit_LIBRARY_DIR})")
  elseif(_kgen_have_cuda)
    message(STATUS "  CUDA (NVRTC)     OFF (disabled; toolkit ${CUDAToolkit_VERSION} found)")
  else()
    message(STATUS "  CUDA (NVRTC)     OFF (CUDA toolkit with NVRTC not found)")
  endif()
  message(STATUS "  CUDA driver      loaded at run time (dlopen libcuda.so.1)")
  if(KGEN_WITH_OPENCL)
    message(STATUS "  OpenCL           ON  (${OpenCL_LIBRARIES}, OpenCL ${OpenCL_VERSION_STRING} headers)")
  elseif(_kgen_have_opencl)
    message(STATUS "  OpenCL           OFF (disabled; found)")
  else()
    message(STATUS "  OpenCL           OFF (headers or ICD loader not found)")
  endif()
  message(STATUS "  Lua              ${LUA_VERSION} (pkg-config lua5.4)")
  message(STATUS "  SQLite           ${SQLite3_VERSION}")
  message(STATUS "  warnings=errors  ${KGEN_WERROR}")
  message(STATUS "  sanitizers       ${KGEN_SANITIZE}")
  message(STATUS "  fuzzer           ${KGEN_FUZZ}")
  message(STATUS "")
endfunction()
