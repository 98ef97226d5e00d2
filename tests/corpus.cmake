# tests/corpus.cmake -- the .pat corpus as CTest tests (label "corpus").
#
#   corpus_bad      tests/bad/*.pat and the pathological inputs that
#                   run_corpus.py generates at test time: every one must be
#                   refused with exit code 2 and the diagnostics it names
#   corpus_golden   tests/golden/*.pat: valid models, each with its expected
#                   plan in a trailing comment section
#
# Included from tests/CMakeLists.txt.  Needs only KGEN_BIN (the kgen binary,
# e.g. the generator expression $<TARGET_FILE:kgen>) and CMAKE_SOURCE_DIR.
# No device is needed.  To rewrite the golden plans after an intended
# change:  python3 tests/run_corpus.py build/kgen . golden --update
if(NOT KGEN_BIN)
  message(FATAL_ERROR "corpus.cmake: set KGEN_BIN (e.g. $<TARGET_FILE:kgen>) "
          "before include()")
endif()

set(_kgen_corpus_env "")
if(KGEN_SANITIZE)
  # ASan/UBSan builds are slower and bigger, and their stack frames are
  # larger; the corpus keeps its checks but with room for that.
  list(APPEND _kgen_corpus_env
    KGEN_CORPUS_TIME_S=5 KGEN_CORPUS_MEM_MIB=2048 KGEN_CORPUS_STACK_KIB=1024)
endif()

foreach(_kgen_corpus_part bad golden)
  add_test(NAME corpus_${_kgen_corpus_part}
    COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/run_corpus.py
            ${KGEN_BIN} ${CMAKE_SOURCE_DIR} ${_kgen_corpus_part})
  set_tests_properties(corpus_${_kgen_corpus_part} PROPERTIES
    LABELS "corpus"
    TIMEOUT 120)
  if(_kgen_corpus_env)
    set_tests_properties(corpus_${_kgen_corpus_part} PROPERTIES
      ENVIRONMENT "${_kgen_corpus_env}")
  endif()
endforeach()
unset(_kgen_corpus_part)
unset(_kgen_corpus_env)
