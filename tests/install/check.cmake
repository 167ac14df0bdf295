# cmake -DBUILD=<tcgen build> -DWORK=<scratch> -DSOURCE=<consumer dir> [-DCXX_FLAGS=...] [-DLINK_FLAGS=...] -P check.cmake
# Installs the build into a scratch prefix, builds the consumer against it, runs it.
file(REMOVE_RECURSE ${WORK})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/consumer)
# The worked value of tcgen05-facts.md §1.
if(NOT out MATCHES "desc=0x4000404000010040")
  message(FATAL_ERROR "consumer printed: ${out}")
endif()
message(STATUS "find_package(tcgen) consumer: ${out}")
