# parasol_add_solver(<name> SOURCES <files...> [BENCH <files...>] [BENCH_LIBRARIES <targets...>])
#
# One call registers a solver, from solvers/<name>/CMakeLists.txt:
#   - its library parasol_<name>, built from SOURCES (relative to solvers/<name>/);
#   - its binding apps/bindings/<name>_binding.cpp, which defines `Binding <name>_binding()`, in the
#     `parasol` front end (apps/CMakeLists.txt generates the registry from the list);
#   - its installation: the library as Parasol::<name> and its host API headers (*.hpp) under
#     include/parasol/solvers/<name>/ (cmake/install.cmake; docs/cpp-api.md);
#   - its benchmark <name>_bench, built from BENCH (relative to bench/), linked with
#     BENCH_LIBRARIES besides the solver and Google Benchmark.
# A solver's other needs (OpenMP, cuFFT) are target_* calls on parasol_<name> after this one.
# docs/adding-a-solver.md walks through it; tests/registry_test.cpp checks every registered
# solver appears in the help text, the benchmark runner and the docs.
function(parasol_add_solver name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;BENCH;BENCH_LIBRARIES")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "parasol_add_solver(${name}): no SOURCES")
  endif()
  set(binding "${PROJECT_SOURCE_DIR}/apps/bindings/${name}_binding.cpp")
  if(NOT EXISTS "${binding}")
    message(FATAL_ERROR "parasol_add_solver(${name}): ${binding} is missing")
  endif()
  add_library(parasol_${name} ${arg_SOURCES})
  target_compile_features(parasol_${name} PUBLIC cxx_std_17 cuda_std_17)
  target_link_libraries(parasol_${name} PUBLIC parasol_kernels)
  set_property(GLOBAL APPEND PROPERTY PARASOL_SOLVERS ${name})
  parasol_install_library(parasol_${name} ${name})
  install(DIRECTORY ./ DESTINATION "${PARASOL_INSTALL_INCLUDEDIR}/solvers/${name}"
          FILES_MATCHING PATTERN "*.hpp")
  if(arg_BENCH)
    list(TRANSFORM arg_BENCH PREPEND "${PROJECT_SOURCE_DIR}/bench/")
    set_property(GLOBAL PROPERTY PARASOL_BENCH_${name} ${arg_BENCH})
    set_property(GLOBAL PROPERTY PARASOL_BENCH_LIBRARIES_${name} ${arg_BENCH_LIBRARIES})
  endif()
endfunction()
