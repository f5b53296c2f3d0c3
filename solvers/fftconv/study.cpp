#include "solvers/fftconv/study.hpp"

#include <future>
#include <utility>

#include "solvers/fftconv/check.hpp"

namespace parasol::fftconv {

template <class T>
VariantStudy<T>::VariantStudy(const Problem& q, const std::vector<Variant>& variants,
                              std::int64_t block, const std::function<Operands<T>()>& load)
    : block_(block) {
  make(q, variants, load);
}

template <class T>
void VariantStudy<T>::make(const Problem& q, const std::vector<Variant>& variants,
                           const std::function<Operands<T>()>& load) {
  std::vector<Options> options;
  for (const Variant v : variants)
    if (supports(v, q)) options.push_back(options_of(v));
  std::future<void> warming = warm_up_async<T>(q, std::move(options));
  ops_ = load();
  checked_ = sampled_outputs(ops_.problem, kSweepCheckStride);
  gold_ = convolve_gold_at(ops_.problem, ops_.signal, ops_.filter, checked_);
  warming.get();
  device_.emplace(q, ops_.signal, ops_.filter);
  device_->sample_outputs(checked_);
  chosen_ = choose_variant(q, sizeof(T));
}

namespace {

// A study's problem from its parameters, said as `where` says a complaint, its memory judged.
template <class T>
Problem judged_problem(const Params& p, const Placement& where) {
  const Problem q = where.telling([&] { return problem_of<T>(p); });
  if (where.fits) where.fits(memory_needs(p, q, sizeof(T), true, true));
  return q;
}

}  // namespace

template <class T>
VariantStudy<T>::VariantStudy(const Params& p, const std::vector<Variant>& variants,
                              const Placement& where)
    : block_(p.block) {
  const Problem q = judged_problem<T>(p, where);
  make(q, variants, [&] { return load_operands<T>(p, q); });
}

template <class T>
VariantMeasurement VariantStudy<T>::measure(Variant v, const Repeats& repeats) {
  const std::string called(name(v));
  VariantMeasurement m;
  // fused says itself why it cannot take an image (below, from convolve).
  if (v == Variant::overlap_save && !supports(v, ops_.problem)) {
    m.skipped = called + " skipped: it takes 1D problems only";
    return m;
  }
  const Options o = options_of(v);
  RowSteps steps;
  steps.method = called;
  steps.poison = [&] { device_->poison_output(); };
  steps.run = [&] { m.ran = name(device_->convolve(o)); };
  steps.check = [&] { return agreement(device_->download_samples(), gold_, ops_.problem); };
  steps.timed = [&] { device_->convolve(o); };
  steps.time = timed_on(device_->stream(), repeats);
  try {
    m.row = measure_row(steps);
  } catch (const InputError& e) {
    m.skipped = called + " skipped: " + e.expected();
  }
  return m;
}

// The variants that cut the signal into blocks take method.block.
template <class T>
Options VariantStudy<T>::options_of(Variant v) const {
  const bool takes_block =
      v == Variant::overlap_save || v == Variant::fused || v == Variant::automatic;
  return {v, takes_block ? block_ : 0};
}

template <class T>
Attributes VariantStudy<T>::attributes() const {
  Attributes a{{"auto_variant", std::string(name(chosen_))}};
  for (auto& p : problem_attributes(ops_.problem)) a.push_back(std::move(p));
  a.push_back({"check_tolerance", tolerance<T>(ops_.problem)});
  a.push_back({"checked_samples", static_cast<std::int64_t>(checked_.size())});
  return a;
}

template <class T>
std::pair<std::string, std::vector<std::pair<std::string, std::string>>> VariantStudy<T>::choice(
    Variant v) const {
  const Variant ran = v == Variant::automatic ? chosen_ : v;
  if (ran != Variant::overlap_save) return {std::string(name(ran)), {}};
  return {std::string(name(ran)), {{"block", std::to_string(block_)}}};
}

template <class T>
std::string VariantStudy<T>::unable() const {
  return "no listed variant can take this problem (the signal is " +
         extent_text(ops_.problem.signal) + " and the filter " + extent_text(ops_.problem.filter) +
         ")";
}

void check_sweepable(const Params& p) {
  if (p.streamed)
    throw InputError("", "method.streamed",
                     "parasol sweep times convolutions of data held on the device; expected false");
  if (p.is_volume())
    throw InputError("", volume_key(p),
                     "parasol sweep times 1D and 2D problems; a volume runs with parasol run "
                     "(bench/fftconv_bench times the volume variants)");
}

template class VariantStudy<float>;
template class VariantStudy<double>;

}  // namespace parasol::fftconv
