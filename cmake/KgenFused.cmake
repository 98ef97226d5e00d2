# KgenFused.cmake -- generate and link a fused library from a .pat model.
#
#   kgen_add_fused_library(TARGET fused PATTERN model.pat ARCH sm_90|opencl
#                          [DB tuning.sqlite] [DIMS T=861 B=1,4 ...]
#                          [OPTIONS extra kgen build options ...])
#
# At build time `kgen build --no-lib` writes fused.c and fused.h (with the
# tuned configs of DB, or kgen's default cache) into
# ${CMAKE_CURRENT_BINARY_DIR}/TARGET_kgen; TARGET is a static library of
# fused.c linked with kgen::kgrt, and its users get fused.h on their include
# path.  The library is rebuilt when the model, the DB or kgen changes.
function(kgen_add_fused_library)
  cmake_parse_arguments(KG "" "TARGET;PATTERN;ARCH;DB" "DIMS;OPTIONS" ${ARGN})
  if(NOT KG_TARGET OR NOT KG_PATTERN OR NOT KG_ARCH)
    message(FATAL_ERROR "kgen_add_fused_library: TARGET, PATTERN and ARCH "
            "are required")
  endif()
  if(KG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kgen_add_fused_library: unknown arguments "
            "${KG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(pat "${KG_PATTERN}" ABSOLUTE)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${KG_TARGET}_kgen")
  set(args build "${pat}" --arch ${KG_ARCH} -o "${out}" --no-lib -q)
  set(deps "${pat}")
  if(KG_DB)
    get_filename_component(db "${KG_DB}" ABSOLUTE)
    list(APPEND args --db "${db}")
    list(APPEND deps "${db}")
  endif()
  foreach(d IN LISTS KG_DIMS)
    list(APPEND args --dim "${d}")
  endforeach()
  if(TARGET kgen::kgen)
    set(kgen_exe kgen::kgen)
  else()
    set(kgen_exe kgen)
  endif()
  add_custom_command(
    OUTPUT "${out}/fused.c" "${out}/fused.h"
    COMMAND ${kgen_exe} ${args} ${KG_OPTIONS}
    DEPENDS ${deps} ${kgen_exe}
    COMMENT "kgen build ${KG_PATTERN} for ${KG_ARCH}"
    VERBATIM)
  add_library(${KG_TARGET} STATIC "${out}/fused.c")
  file(MAKE_DIRECTORY "${out}")
  target_include_directories(${KG_TARGET} PUBLIC "${out}")
  if(TARGET kgen::kgrt)
    target_link_libraries(${KG_TARGET} PUBLIC kgen::kgrt)
  else()
    target_link_libraries(${KG_TARGET} PUBLIC kgrt)
  endif()
  set_target_properties(${KG_TARGET} PROPERTIES C_STANDARD 11)
endfunction()
