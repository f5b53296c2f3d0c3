# The test install.consumer: installs the build tree into a fresh prefix, checks the installed
# headers are complete, and configures, builds and runs tests/consumer/ against the prefix.
# cmake -DBUILD_DIR=... -DPACKAGE_DIR=lib/cmake/Parasol -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -DC_COMPILER=...
#       -DCXX_COMPILER=... -DCUDA_ROOT=... -DPREFIX_PATH=<a|b> -P run.cmake
foreach(var BUILD_DIR PACKAGE_DIR SOURCE_DIR WORK_DIR GENERATOR C_COMPILER CXX_COMPILER CUDA_ROOT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: -D${var}=... is missing")
  endif()
endforeach()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install.consumer: ${what} failed (${rc}): ${ARGN}")
  endif()
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
step("installing the build tree" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")

foreach(file bin/parasol ${PACKAGE_DIR}/ParasolConfig.cmake ${PACKAGE_DIR}/ParasolConfigVersion.cmake)
  if(NOT EXISTS "${prefix}/${file}")
    file(GLOB_RECURSE found RELATIVE "${prefix}" "${prefix}/*")
    message(FATAL_ERROR "install.consumer: ${file} was not installed; the prefix holds: ${found}")
  endif()
endforeach()

# Every header an installed header includes by its path from the source root is installed too
# (a .cuh or a comm/detail/ header would be one left behind).
set(include_dir "${prefix}/include/parasol")
file(GLOB_RECURSE headers RELATIVE "${include_dir}" "${include_dir}/*")
foreach(header IN LISTS headers)
  file(STRINGS "${include_dir}/${header}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*" "\\1" included "${line}")
    if(NOT EXISTS "${include_dir}/${included}")
      message(FATAL_ERROR "install.consumer: installed ${header} includes ${included}, "
                          "which was not installed")
    endif()
  endforeach()
endforeach()
list(LENGTH headers header_count)
message(STATUS "install.consumer: ${header_count} headers installed, their includes all there")

string(REPLACE "|" ";" prefix_path "${prefix};${PREFIX_PATH}")
step("configuring tests/consumer against ${prefix}"
     "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
     -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_COMPILER=${C_COMPILER}"
     "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCUDAToolkit_ROOT=${CUDA_ROOT}"
     "-DCMAKE_PREFIX_PATH=${prefix_path}")
step("building tests/consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
step("running the consumer" "${WORK_DIR}/build/consumer")
