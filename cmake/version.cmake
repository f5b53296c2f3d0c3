# PARASOL_GIT_DESCRIBE: `git describe` of the source tree at configure time, stored in every
# result file so a number can be traced to the code that produced it.
# A copy of the tree without .git can pass it in: -DPARASOL_GIT_DESCRIBE=$(git describe ...).
find_package(Git QUIET)
if(NOT PARASOL_GIT_DESCRIBE)
  set(PARASOL_GIT_DESCRIBE "unknown")
endif()
if(PARASOL_GIT_DESCRIBE STREQUAL "unknown" AND GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --tags
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    OUTPUT_VARIABLE PARASOL_GIT_DESCRIBE
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
  if(NOT PARASOL_GIT_DESCRIBE)
    set(PARASOL_GIT_DESCRIBE "unknown")
  endif()
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/version.hpp.in"
               "${PROJECT_BINARY_DIR}/generated/parasol/version.hpp" @ONLY)
