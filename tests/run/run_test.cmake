# One `tcgen run` test: runs the program under tcgen run and checks its exit
# code and what it printed.
#   cmake -DTCGEN=<tcgen> [-DVERB=ptx] -DOPTIONS=<--strict;...> -DPROGRAM=<program> -DARGS=<a;b> -DRC=<exit code>
#         -DOUT=<stdout regex> -DERR=<stderr regex> [-DNOT_ERR=<regex stderr must not match>] -P run_test.cmake
if(VERB STREQUAL "ptx")  # tcgen ptx PROGRAM: the program's embedded PTX, nothing run
  execute_process(COMMAND "${TCGEN}" ptx ${OPTIONS} "${PROGRAM}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
else()
  execute_process(COMMAND "${TCGEN}" run ${OPTIONS} -- "${PROGRAM}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
endif()
set(where "tcgen run ${OPTIONS} -- ${PROGRAM} ${ARGS}\n  rc=${rc}\n  stdout: ${out}\n  stderr: ${err}")
if(NOT rc EQUAL RC)
  message(FATAL_ERROR "expected exit ${RC}: ${where}")
endif()
if(NOT out MATCHES "${OUT}")
  message(FATAL_ERROR "stdout does not match '${OUT}': ${where}")
endif()
if(NOT err MATCHES "${ERR}")
  message(FATAL_ERROR "stderr does not match '${ERR}': ${where}")
endif()
if(NOT NOT_ERR STREQUAL "" AND err MATCHES "${NOT_ERR}")
  message(FATAL_ERROR "stderr matches '${NOT_ERR}', which it must not: ${where}")
endif()
