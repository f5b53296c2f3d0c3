# parasol_warnings: an interface target that turns warnings on for C++ and for CUDA (device code
# and the host compiler behind nvcc). Every Parasol target links it.
add_library(parasol_warnings INTERFACE)
target_compile_options(parasol_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Wreorder -Wno-deprecated-gpu-targets>)
if(PARASOL_WARNINGS_AS_ERRORS)
  target_compile_options(parasol_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
endif()
