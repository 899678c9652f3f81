# ctest helpers. Every test runs under PETSc's mpiexec; GPU tests carry the label "gpu" and are
# skipped (ctest SKIP_RETURN_CODE 200) on machines without a CUDA device.
#
#   squall_test(NAME name COMMAND exe [args...] [NP n] [LABELS l...])
#   squall_output_test(NAME name COMMAND exe [args...] [NP n] EXPECTED file [RTOL r] [ATOL a] [LABELS ...])
#     runs the command and compares its output with tests/output/<file> number by number.
set(SQUALL_TEST_OUTPUT_DIR ${PROJECT_SOURCE_DIR}/tests/output)
find_package(Python3 COMPONENTS Interpreter REQUIRED)

function(squall_test)
  cmake_parse_arguments(T "" "NAME;NP" "COMMAND;LABELS" ${ARGN})
  if(NOT T_NP)
    set(T_NP 1)
  endif()
  list(POP_FRONT T_COMMAND exe)
  add_test(NAME ${T_NAME} COMMAND ${SQUALL_MPIEXEC} -n ${T_NP} $<TARGET_FILE:${exe}> ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_NP} SKIP_RETURN_CODE 200 TIMEOUT 300
    LABELS "${T_LABELS}")
endfunction()

function(squall_output_test)
  cmake_parse_arguments(T "" "NAME;NP;EXPECTED;RTOL;ATOL" "COMMAND;LABELS" ${ARGN})
  if(NOT T_NP)
    set(T_NP 1)
  endif()
  if(NOT T_RTOL)
    set(T_RTOL 1e-8)
  endif()
  if(NOT T_ATOL)
    set(T_ATOL 1e-10)
  endif()
  list(POP_FRONT T_COMMAND exe)
  add_test(NAME ${T_NAME}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/compare-output.py
            --expected ${SQUALL_TEST_OUTPUT_DIR}/${T_EXPECTED} --rtol ${T_RTOL} --atol ${T_ATOL} --
            ${SQUALL_MPIEXEC} -n ${T_NP} $<TARGET_FILE:${exe}> ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_NP} SKIP_RETURN_CODE 200 TIMEOUT 300
    LABELS "${T_LABELS}" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endfunction()
