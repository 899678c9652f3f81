# ctest helpers. Every test runs under PETSc's mpiexec; GPU tests carry the label "gpu" and are
# skipped (ctest SKIP_RETURN_CODE 200) on machines without a CUDA device.
#
#   squall_test(NAME name COMMAND exe [args...] [NP n] [LABELS l...])
#   squall_output_test(NAME name COMMAND exe [args...] [NP n] EXPECTED file [RTOL r] [ATOL a]
#                      [EPS_RTOL k] [EPS_ATOL k] [LINE_TOL regex rtol atol] [LABELS ...])
#     runs the command and compares its output with tests/output/<file> number by number.
#     The tolerances follow the precision: max(RTOL, k eps) with k from EPS_RTOL (likewise ATOL), eps the
#     machine epsilon of PETSc's precision. In double the tests below keep k eps <= RTOL, ATOL (exactly the given
#     tolerances); in single, where the expected files (written in double) differ by round-off, k eps. LINE_TOL:
#     other tolerances (used as given) for the numbers on lines that match regex.
#   squall_eps(var k [floor]): var = k * eps as text (max(floor, k eps) when floor is given, floor itself as
#     written when it is the larger), e.g. a solver tolerance for the command line.
set(SQUALL_TEST_OUTPUT_DIR ${PROJECT_SOURCE_DIR}/tests/output)
find_package(Python3 COMPONENTS Interpreter REQUIRED)
if(SQUALL_PETSC_PRECISION STREQUAL "single")
  set(SQUALL_EPS 1.1920928955078125e-07) # FLT_EPSILON = PETSC_MACHINE_EPSILON in single
else()
  set(SQUALL_EPS 2.220446049250313e-16) # DBL_EPSILON
endif()

function(squall_eps var k)
  set(floor 0)
  if(ARGC GREATER 2)
    set(floor ${ARGV2})
  endif()
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sys; k, e, f = (float(x) for x in sys.argv[1:]); print(sys.argv[3] if f >= k * e else '%.3g' % (k * e))"
                  ${k} ${SQUALL_EPS} ${floor} OUTPUT_VARIABLE v OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set(${var} ${v} PARENT_SCOPE)
endfunction()

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
  cmake_parse_arguments(T "" "NAME;NP;EXPECTED;RTOL;ATOL;EPS_RTOL;EPS_ATOL" "COMMAND;LABELS;LINE_TOL" ${ARGN})
  if(NOT T_NP)
    set(T_NP 1)
  endif()
  if(NOT T_RTOL)
    set(T_RTOL 1e-8)
  endif()
  if(NOT T_ATOL)
    set(T_ATOL 1e-10)
  endif()
  if(T_EPS_RTOL)
    squall_eps(T_RTOL ${T_EPS_RTOL} ${T_RTOL})
  endif()
  if(T_EPS_ATOL)
    squall_eps(T_ATOL ${T_EPS_ATOL} ${T_ATOL})
  endif()
  set(line_tol)
  if(T_LINE_TOL)
    set(line_tol --line-tol ${T_LINE_TOL})
  endif()
  list(POP_FRONT T_COMMAND exe)
  add_test(NAME ${T_NAME}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/compare-output.py
            --expected ${SQUALL_TEST_OUTPUT_DIR}/${T_EXPECTED} --rtol ${T_RTOL} --atol ${T_ATOL} ${line_tol} --
            ${SQUALL_MPIEXEC} -n ${T_NP} $<TARGET_FILE:${exe}> ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES PROCESSORS ${T_NP} SKIP_RETURN_CODE 200 TIMEOUT 300
    LABELS "${T_LABELS}" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endfunction()
