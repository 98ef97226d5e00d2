# KgenFlags.cmake -- language level, warnings and sanitizers for every target.
#
# All C code in this tree is kgen's own, so the flags are set directory-wide
# rather than per target: a new test or tool gets the same warnings and the
# same sanitizers without anyone remembering to ask for them.

set(CMAKE_C_STANDARD 11)
set(CMAKE_C_STANDARD_REQUIRED ON)
# gnu11: the code uses __attribute__ and __builtin_*_overflow.
set(CMAKE_C_EXTENSIONS ON)

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING
      "Build type: Debug, Release, RelWithDebInfo, MinSizeRel" FORCE)
endif()

option(KGEN_WERROR "Treat compiler warnings as errors" OFF)
option(KGEN_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

add_compile_options(-Wall -Wextra)
if(KGEN_WERROR)
  add_compile_options(-Werror)
endif()

if(KGEN_SANITIZE)
  set(KGEN_SANITIZE_FLAGS
      -fsanitize=address,undefined
      -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined)
  add_compile_options(${KGEN_SANITIZE_FLAGS})
  add_link_options(${KGEN_SANITIZE_FLAGS})
endif()
