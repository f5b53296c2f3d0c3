// What the `parasol` program does before any library is initialised: OpenMP's idle threads wait
// passively unless the user chose otherwise (kernels/cpu_threads.hpp, exec_with_passive_openmp).
// .preinit_array runs only in an executable, before every shared library's initialisers.
#include "kernels/cpu_threads.hpp"

namespace {

__attribute__((used, section(".preinit_array"))) void (*const parasol_passive_openmp)(
    int, char**, char**) = &parasol::exec_with_passive_openmp;

}  // namespace
