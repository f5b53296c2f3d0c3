// parasol._parasol: the extension behind the `parasol` Python package (python/parasol/).
#include "arrays.hpp"
#include "kernels/cpu_threads.hpp"

namespace parasol::python {
void bind_run(nb::module_& m);
void bind_solvers(nb::module_& m);
void bind_device(nb::module_& m);  // after bind_solvers: it adds to parasol.fftconv
}  // namespace parasol::python

NB_MODULE(_parasol, m) {
  using namespace parasol::python;
  m.doc() = "Parasol's solvers and driver, NumPy arrays in and out (the `parasol` package).";
  // As the command line's --threads auto: the CPU solvers use the cores this process may use.
  parasol::apply_threads_option(parasol::ThreadsOption{}, 1);
  register_errors();
  bind_run(m);
  bind_solvers(m);
  bind_device(m);
}
