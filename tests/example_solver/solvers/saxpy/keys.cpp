#include "solvers/saxpy/keys.hpp"

namespace parasol::saxpy {

const Keys<Params>& keys() {
  using P = Params;
  return declared_once<P>([](Keys<P>& k) {
    k.push_back(key<P>("problem.n", [](P& p) -> auto& { return p.n; }, "elements of x and y")
                    .at_least(1));
    k.push_back(key<P>("problem.a", [](P& p) -> auto& { return p.a; }, "the scale of x"));
    k.push_back(key<P>("method.threads", [](P& p) -> auto& { return p.threads; },
                       "threads per block")
                    .values("32, 64, … 1024")
                    .gpu_only());
  });
}

const Keys<SweepParams>& sweep_keys() {
  using S = SweepParams;
  return declared_once<S>([](Keys<S>& k) {
    add_repeat_keys<S>(k, [](S& s) -> auto& { return s.repeats; }, "timed runs");
  });
}

const MethodAxes<Params>& method_axes(const Params&) {
  static const MethodAxes<Params> axes = [] {
    MethodAxes<Params> m;
    m.axes = {integer_axis<Params>("threads", "threads", 7,
                                   [](Params& p) -> auto& { return p.threads; }, 32, 1024,
                                   "threads per block")};
    return m;
  }();
  return axes;
}

}  // namespace parasol::saxpy
