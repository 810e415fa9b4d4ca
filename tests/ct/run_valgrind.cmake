# Runs PROGRAM under memcheck and fails on any error. --error-exitcode catches
# every memcheck error; the log is also searched for the two reports that
# mean a secret steered a branch or an address, so the failure says which.
# Usage: cmake -DVALGRIND=... -DPROGRAM=... -DLOG=... -P run_valgrind.cmake
if(NOT VALGRIND OR NOT EXISTS "${VALGRIND}")
  message(FATAL_ERROR "valgrind not found: install Debian's valgrind package (binary and <valgrind/memcheck.h>)")
endif()
execute_process(
  COMMAND "${VALGRIND}" --tool=memcheck --error-exitcode=1 --track-origins=yes
          --num-callers=30 --log-file=${LOG} "${PROGRAM}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
file(READ "${LOG}" log)
string(REGEX MATCHALL "Conditional jump or move depends on uninitialised value" jumps "${log}")
string(REGEX MATCHALL "Use of uninitialised value of size" addrs "${log}")
list(LENGTH jumps n_jumps)
list(LENGTH addrs n_addrs)
message("memcheck: ${n_jumps} secret-dependent branches, ${n_addrs} secret-dependent addresses (log: ${LOG})")
if(NOT rc EQUAL 0 OR n_jumps GREATER 0 OR n_addrs GREATER 0)
  message("${log}")
  message(FATAL_ERROR "constant-time check failed (exit ${rc})")
endif()
