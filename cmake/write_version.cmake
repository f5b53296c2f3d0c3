# Run by the parasol_version target: writes OUTPUT from version.hpp.in when its text changes.
if(NOT GIT_DESCRIBE)
  set(GIT_DESCRIBE "unknown")
  if(GIT_EXECUTABLE AND EXISTS "${SOURCE_DIR}/.git")
    execute_process(
      COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --tags
      WORKING_DIRECTORY "${SOURCE_DIR}"
      OUTPUT_VARIABLE described
      OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_QUIET)
    if(described)
      set(GIT_DESCRIBE "${described}")
    endif()
  endif()
endif()
set(PROJECT_VERSION "${VERSION}")
set(PARASOL_GIT_DESCRIBE "${GIT_DESCRIBE}")
configure_file("${SOURCE_DIR}/cmake/version.hpp.in" "${OUTPUT}" @ONLY)
