# generated/parasol/version.hpp: the project version and `git describe` of the source tree,
# stored in every result so a number can be traced to the code that produced it. Refreshed at
# every build (rewritten only when it changes), so a commit after configuring is not missed.
# A tree copied without .git can pass its description in: -DPARASOL_GIT_DESCRIBE=...
find_package(Git QUIET)
set(PARASOL_VERSION_HEADER "${PROJECT_BINARY_DIR}/generated/parasol/version.hpp")
add_custom_target(parasol_version
  COMMAND "${CMAKE_COMMAND}"
          -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DOUTPUT=${PARASOL_VERSION_HEADER}
          -DVERSION=${PROJECT_VERSION}
          -DGIT_EXECUTABLE=${GIT_EXECUTABLE}
          -DGIT_DESCRIBE=${PARASOL_GIT_DESCRIBE}
          -P "${PROJECT_SOURCE_DIR}/cmake/write_version.cmake"
  BYPRODUCTS "${PARASOL_VERSION_HEADER}"
  COMMENT "Checking the source version")
