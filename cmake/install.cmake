# `cmake --install` puts the `parasol` executable in bin/, the static libraries in lib/, their
# host API headers in include/parasol/ (kernels/, comm/, io/, solvers/<name>/, included by the
# same paths as in the source tree) and a CMake package in lib/cmake/Parasol/, so that another
# CMake project links a solver with find_package(Parasol) and Parasol::<name> (docs/cpp-api.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PARASOL_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/parasol")
set(PARASOL_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Parasol")

# parasol_install_library(<target> <name>): installs <target> (static, as built) as Parasol::<name>.
# Its usage requirements travel with it; the package's config file finds the libraries they name.
function(parasol_install_library target name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${target} EXPORT ParasolTargets
          ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endfunction()

# The package: ParasolTargets.cmake (every library installed above) and ParasolConfig.cmake,
# which finds the dependencies this build linked before it defines the targets.
function(parasol_install_package)
  install(EXPORT ParasolTargets NAMESPACE Parasol:: DESTINATION "${PARASOL_INSTALL_CMAKEDIR}")
  if(OpenMP_CXX_FOUND)
    set(PARASOL_WITH_OPENMP ON)
  else()
    set(PARASOL_WITH_OPENMP OFF)
  endif()
  configure_package_config_file(
    "${PROJECT_SOURCE_DIR}/cmake/ParasolConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/package/ParasolConfig.cmake"
    INSTALL_DESTINATION "${PARASOL_INSTALL_CMAKEDIR}")
  # 0.x: a minor version may change the API.
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/ParasolConfigVersion.cmake"
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES "${PROJECT_BINARY_DIR}/package/ParasolConfig.cmake"
                "${PROJECT_BINARY_DIR}/package/ParasolConfigVersion.cmake"
          DESTINATION "${PARASOL_INSTALL_CMAKEDIR}")
endfunction()
