// tridiag's sweep configurations, its batch kept on the device, and the batch a sweep times.
#include "solvers/tridiag/sweep.hpp"

#include <algorithm>
#include <memory>

#include "kernels/compare.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "solvers/tridiag/check.hpp"
#include "solvers/tridiag/heat.hpp"
#include "solvers/tridiag/inputs.hpp"

namespace parasol::tridiag {

void require_sweepable(const Params& p) {
  if (p.cut == Cut::rows)
    throw InputError("", "system.cut",
                     "`parasol sweep` times the variants on whole systems; one long system cut "
                     "by rows has one method (run it with `parasol run`)");
}

bool listable_chunk(int chunk) {
  for (Variant v : kVariants) {
    const std::vector<int> chunks = compiled_chunks(v);
    if (std::find(chunks.begin(), chunks.end(), chunk) != chunks.end()) return true;
  }
  return chunk == 0;
}

std::vector<int> chunks_for(Variant v, const std::vector<int>& listed) {
  std::vector<int> compiled = compiled_chunks(v);
  if (compiled.empty()) compiled = {0};
  if (listed.empty() || compiled == std::vector<int>{0}) return compiled;
  std::vector<int> chosen;
  for (int c : listed)
    if (c == 0 || std::find(compiled.begin(), compiled.end(), c) != compiled.end())
      chosen.push_back(c);
  return chosen;
}

namespace {

// configurations_for with `resolve(launch)` making each listed launch concrete, as the solver
// that runs it will: the rows name the launches that run.
template <class Resolve>
std::vector<Configuration> configurations_resolved(const std::vector<Variant>& variants,
                                                   const std::vector<int>& threads,
                                                   const std::vector<int>& chunks,
                                                   Resolve&& resolve) {
  std::vector<Configuration> out;
  for (Variant v : variants) {
    std::vector<Launch> launches;
    std::vector<std::string> skipped;
    for (int t : threads)
      for (int chunk : chunks_for(v, chunks)) {
        try {
          const Launch l = resolve(Launch{v, t, chunk});
          if (std::none_of(launches.begin(), launches.end(), [&](const Launch& o) {
                return o.threads == l.threads && o.chunk == l.chunk;
              }))
            launches.push_back(l);
        } catch (const InputError& e) {
          skipped.push_back(std::to_string(t) + " threads, chunk " + std::to_string(chunk) +
                            ": " + e.expected());
        }
      }
    if (launches.empty()) {
      out.push_back({{v, 0, 0},
                     std::string(name(v)) + " skipped: " +
                         (skipped.empty() ? "no chunk listed for it" : skipped.front()),
                     ""});
      continue;
    }
    for (const Launch& l : launches) out.push_back({l, "", ""});
    if (!skipped.empty())
      out[out.size() - launches.size()].note =
          std::string(name(v)) + ": " + std::to_string(skipped.size()) + " launch" +
          (skipped.size() == 1 ? "" : "es") + " skipped (first: " + skipped.front() + ")";
  }
  return out;
}

}  // namespace

std::vector<Configuration> configurations_for(const std::vector<Variant>& variants,
                                              const std::vector<int>& threads,
                                              const std::vector<int>& chunks, const Dims& dims,
                                              int element_bytes) {
  return configurations_resolved(variants, threads, chunks, [&](const Launch& l) {
    return resolve_launch(l, {dims.n, dims.systems, required_layout(l.variant)}, element_bytes);
  });
}

std::vector<Configuration> configurations_for(const std::vector<Variant>& variants,
                                              const std::vector<int>& threads,
                                              const std::vector<int>& chunks,
                                              const KindDims& dims, int element_bytes) {
  return configurations_resolved(variants, threads, chunks, [&](const Launch& l) {
    return resolve_kind_launch(l, dims, element_bytes);
  });
}

template <class T>
ResidentBatches<T>::ResidentBatches(const Batch<T>& batch, const std::vector<double>& gold,
                                    double condition, cudaStream_t stream)
    : batch_(batch), gold_(gold), condition_(condition), scale_(max_magnitude(gold)),
      stream_(stream) {}

template <class T>
typename ResidentBatches<T>::Resident& ResidentBatches<T>::in(Layout layout) {
  for (Resident& r : residents_)
    if (r.batch.dims().layout == layout) return r;
  const double batch_bytes = bytes_per_solve(batch_.dims, static_cast<int>(sizeof(T)));
  const double gold_bytes = static_cast<double>(gold_.size() * sizeof(double));
  if (!residents_.empty() && !fits_in_free_memory(2 * batch_bytes + gold_bytes)) residents_.clear();
  residents_.push_back({DeviceBatch<T>(batch_, layout, stream_), {}});
  Resident& r = residents_.back();
  // The gold, and its copy before it is reordered, beside the batch.
  if (fits_in_free_memory(2 * gold_bytes))
    r.gold = upload_relaid(gold_, batch_.dims, layout, stream_);
  return r;
}

template <class T>
Agreement ResidentBatches<T>::agreement(const Resident& resident) const {
  const DeviceBatch<T>& device = resident.batch;
  if (resident.gold.empty())
    return tridiag::agreement(device.download(), gold_, condition_, batch_.dims.n);
  return tridiag::agreement<T>(
      device_compare(device.x(), resident.gold.data(), batch_.dims.size(), device.stream()),
      scale_, condition_, batch_.dims.n);
}

template class ResidentBatches<float>;
template class ResidentBatches<double>;

template <class T>
ResidentKindBatch<T>::ResidentKindBatch(const KindBatch<T>& batch, cudaStream_t stream)
    : batch_(batch), stream_(stream) {}

template <class T>
void ResidentKindBatch<T>::poison(const KindSolver<T>& solver) {
  const Layout layout = solver.layout();
  if (bands_.empty() || layout != layout_) {
    bands_.clear();
    pointers_.clear();
    d_ = {};
    x_ = {};
    const KindDims& k = batch_.dims;
    for (const std::vector<T>& band : batch_.bands) {
      bands_.push_back(
          upload_relaid(band, {k.band_width(), k.systems, Layout::contiguous}, layout, stream_));
      pointers_.push_back(bands_.back().data());
    }
    d_ = upload_relaid(batch_.d, {k.rhs_width(), k.systems, Layout::contiguous}, layout, stream_);
    x_ = DeviceBuffer<T>(batch_.d.size());
    layout_ = layout;
  }
  fill_bytes(x_, 0xFF, stream_);
}

template <class T>
void ResidentKindBatch<T>::solve(KindSolver<T>& solver) {
  solver.solve(pointers_.data(), d_.data(), x_.data(), stream_);
}

template <class T>
std::vector<T> ResidentKindBatch<T>::x() const {
  const KindDims& k = batch_.dims;
  return relayout(download(x_, stream_), {k.rhs_width(), k.systems, layout_}, Layout::contiguous);
}

template class ResidentKindBatch<float>;
template class ResidentKindBatch<double>;

namespace {

// `agree()` once `check_device()` finds the solves so far clean; a failure the gold did not meet
// (a zero pivot) fails the row, and is said through `note`.
template <class CheckDevice, class Agree>
Agreement checked(const Launch& launch, const std::function<void(const std::string&)>& note,
                  CheckDevice&& check_device, Agree&& agree) {
  try {
    check_device();
  } catch (const NumericalError& e) {
    const std::string what = method_of(launch) + ": " + e.what();
    note(what + ", where the gold solved it");
    return failed_solve(what);
  }
  return agree();
}

}  // namespace

template <class T>
SweptBatch<T>::SweptBatch(const Params& p, const SweepParams& s, const Fits& fits) {
  const int element_bytes = static_cast<int>(sizeof(T));
  std::vector<Variant> variants;
  if (p.kind == Kind::general) {
    batch_ = p.problem == Problem::heat   ? heat_step<T>(p.heat)
             : p.problem == Problem::file ? read_batch<T>(p.input)
                                          : random_batch<T>({p.random.n, p.random.systems,
                                                             Layout::contiguous},
                                                            p.random.seed);
    dims_ = {Kind::general, batch_.dims.n, batch_.dims.systems, 1};
    what_ = extent(batch_.dims);
    fits(footprint(batch_.dims, element_bytes, true), what_);
    gold_ = solve_gold(batch_);
    // A heat step's bound as `parasol run` takes it (every row alike but the ends: three rows
    // give it), not a pass over the whole batch.
    condition_ = p.problem == Problem::heat ? condition_bound(p.heat) : condition_bound(batch_);
    tolerance_ = tridiag::tolerance<T>(condition_, dims_.n);
    bytes_ = tridiag::bytes_per_solve(batch_.dims, element_bytes);
    variants = s.variants;
  } else {
    kinds_ = p.problem == Problem::random
                 ? random_kind_batch<T>({p.kind, p.random.n, p.random.systems, p.rhs}, p.random.seed)
             : p.problem == Problem::file ? read_kind_batch_part<T>(p.input, p.kind, p.rhs, 0, 1).batch
                                          : heat_ring_step<T>(p.heat);
    dims_ = kinds_.dims;
    what_ = extent(dims_);
    fits(footprint(dims_, element_bytes, true), what_);
    gold_ = solve_kind_gold(kinds_);
    condition_ = condition_bound(kinds_);
    tolerance_ = kind_tolerance<T>(dims_, condition_);
    bytes_ = kind_bytes_per_solve(dims_, element_bytes);
    const std::vector<Variant> solvers = variants_for(p.kind);
    for (Variant v : s.variants)
      if (std::find(solvers.begin(), solvers.end(), v) != solvers.end()) variants.push_back(v);
  }
  // Another kind's launches as its solver makes them (resolve_kind_launch: its on-chip kernels
  // run a launch they cannot take as asked at the nearest they can).
  configurations_ =
      p.kind == Kind::general
          ? configurations_for(variants, s.threads, s.chunks,
                               {dims_.n, dims_.systems, Layout::contiguous}, element_bytes)
          : configurations_for(variants, s.threads, s.chunks, dims_, element_bytes);
}

template <class T>
std::string SweptBatch<T>::described() const {
  return dims_.kind == Kind::multi_rhs
             ? what_ + " x " + std::to_string(dims_.rhs) + " right-hand sides"
             : what_;
}

template <class T>
std::string SweptBatch<T>::header() const {
  return described() + ", " +
         std::string(name(sizeof(T) == 4 ? Precision::single : Precision::double_));
}

template <class T>
std::vector<Params> SweptBatch<T>::launch_params(const Params& p) const {
  std::vector<Params> all;
  for (const Configuration& c : configurations_) all.push_back(with_launch(p, c.launch));
  return all;
}

template <class T>
Attributes SweptBatch<T>::attributes() const {
  Attributes a{{"bytes_per_solve", bytes_}, {"n", dims_.n}, {"systems", dims_.systems}};
  if (dims_.kind != Kind::general) {
    a.emplace_back("kind", std::string(name(dims_.kind)));
    a.emplace_back("rhs", std::int64_t{dims_.rhs});
  }
  a.emplace_back("condition_bound", condition_);
  a.emplace_back("check_tolerance", tolerance_);
  return a;
}

template <class T>
std::string SweptBatch<T>::unsolvable() const {
  const std::string text = "no listed variant, threads and chunk can solve " + what_;
  if (dims_.kind == Kind::general) return text;
  std::string names;
  for (Variant v : variants_for(dims_.kind))
    names += (names.empty() ? "" : ", ") + std::string(name(v));
  return text + " (" + names + " solve them)";
}

template <class T>
RowSteps SweptBatch<T>::steps(const Launch& launch, cudaStream_t stream, const Repeats& repeats,
                              const Note& note) {
  RowSteps steps;
  steps.method = method_of(launch);
  steps.time = timed_on(stream, repeats);
  if (dims_.kind == Kind::general) {
    if (!residents_) residents_.emplace(batch_, gold_, condition_, stream);
    ResidentBatches<T>* residents = &*residents_;
    typename ResidentBatches<T>::Resident* on = &residents->in(required_layout(launch.variant));
    DeviceBatch<T>* device = &on->batch;
    steps.poison = [device] { device->poison(); };
    steps.run = [device, launch] { device->solve(launch); };
    steps.check = [device, residents, on, note] {
      return checked(device->launch(), note, [&] { device->check(); },
                     [&] { return residents->agreement(*on); });
    };
    return steps;
  }
  // The solver is made, and the batch uploaded in its layout, inside the row's poison step, so
  // that a launch the device refuses there fails only its row. The re-check asks the device
  // whether a timed solve failed; the first check's agreement stands otherwise.
  if (!kind_resident_) kind_resident_.emplace(kinds_, stream);
  struct Row {
    std::optional<KindSolver<T>> solver;
    Agreement first;
  };
  const auto row = std::make_shared<Row>();
  ResidentKindBatch<T>* r = &*kind_resident_;
  const auto check_device = [row, stream] { row->solver->check(stream); };
  steps.poison = [row, r, launch, dims = dims_] {
    row->solver.emplace(launch, dims);
    r->poison(*row->solver);
  };
  steps.run = [row, r] { r->solve(*row->solver); };
  steps.check = [this, row, r, note, check_device] {
    row->first = checked(row->solver->launch(), note, check_device,
                         [&] { return kind_agreement(r->x(), gold_, dims_, condition_); });
    return row->first;
  };
  steps.recheck = [row, note, check_device] {
    return checked(row->solver->launch(), note, check_device, [&] { return row->first; });
  };
  return steps;
}

template class SweptBatch<float>;
template class SweptBatch<double>;

}  // namespace parasol::tridiag
