# tcgen_add_library(NAME SOURCES... DEPENDS...)
# One static library per piece of the design, public headers under
# <piece>/include/tcgen/<piece>/, exported as tcgen::<piece>.
function(tcgen_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(tcgen_${name} STATIC ${ARG_SOURCES})
  add_library(tcgen::${name} ALIAS tcgen_${name})
  set_target_properties(tcgen_${name} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME tcgen_${name})
  target_include_directories(tcgen_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(tcgen_${name} PUBLIC cxx_std_20)
  target_compile_options(tcgen_${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>)
  target_link_libraries(tcgen_${name} PUBLIC ${ARG_DEPENDS})
  install(TARGETS tcgen_${name} EXPORT tcgenTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()

# tcgen_device_flags(TARGET ARCH...) : compile a CUDA target for the given
# arch-specific targets, e.g. 100a 90a: the sm_X cubin and the compute_X PTX,
# which `tcgen run` runs on the host model. The layout algebra's constexpr
# host code is used on the device too, as in CUTLASS, hence
# --expt-relaxed-constexpr.
function(tcgen_device_flags target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  foreach(arch ${ARGN})
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_${arch},code=[sm_${arch},compute_${arch}]>")
  endforeach()
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES OFF)
endfunction()

# tcgen_ptx(NAME SOURCE LIBRARY...) : SOURCE compiled to PTX for sm_100a, as
# nvcc -ptx -lineinfo writes it, with the include paths of LIBRARY...: the
# kernels the host model's PTX interpreter runs (tcgen::ptx). The file is
# $<TARGET_OBJECTS:NAME>.
function(tcgen_ptx name source)
  add_library(${name} OBJECT ${source})
  set_target_properties(${name} PROPERTIES CUDA_PTX_COMPILATION ON CUDA_ARCHITECTURES OFF)
  target_compile_options(${name} PRIVATE --expt-relaxed-constexpr -lineinfo
    -gencode=arch=compute_100a,code=sm_100a)
  target_link_libraries(${name} PRIVATE ${ARGN})
endfunction()

# tcgen_kernel_backends(NAME KERNELS): a kernel library's two CUDA faces, where nvcc is found:
# tcgen_NAME_sm100, the CLI's B200 backend (src/sm100_runner.cu, kept out of tcgen::NAME so that the
# installed library needs no CUDA), and tcgen_NAME_ptx, the KERNELS source as PTX for `--backend ptx`
# and the tests (run.hpp with tcgen/ptx/backend.hpp).
function(tcgen_kernel_backends name kernels)
  if(NOT TCGEN_HAVE_CUDA)
    return()
  endif()
  find_package(CUDAToolkit REQUIRED)
  add_library(tcgen_${name}_sm100 STATIC src/sm100_runner.cu)
  target_link_libraries(tcgen_${name}_sm100 PUBLIC tcgen::${name} tcgen_exec_sm100 CUDA::cudart)
  tcgen_device_flags(tcgen_${name}_sm100 100a)
  tcgen_ptx(tcgen_${name}_ptx ${kernels} tcgen::${name})
endfunction()
