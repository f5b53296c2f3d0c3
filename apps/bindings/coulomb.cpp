// coulomb's binding: its parameters and atoms, what a run prints and writes (the potential with
// its XDMF sidecar, and an OpenDX map on request), and its sweep over variants, block shapes and
// coarsenings on one upload of the atoms. A run may be cut among ranks (solvers/coulomb/part.hpp):
// rank 0 reads the atoms and broadcasts them, each rank sums its part of the lattice and writes
// it in its turn.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>

#include "apps/binding.hpp"
#include "apps/fits.hpp"
#include "apps/io/dx.hpp"
#include "apps/io/xdmf.hpp"
#include "apps/progress.hpp"
#include "comm/over_ranks.hpp"
#include "kernels/device.hpp"
#include "kernels/stream.hpp"
#include "kernels/timed_runs.hpp"
#include "solvers/coulomb/check.hpp"
#include "solvers/coulomb/coulomb.hpp"
#include "solvers/coulomb/shapes.hpp"

namespace parasol::app {
namespace {

using coulomb::Atom;
using coulomb::Params;
using coulomb::Variant;

// scatter, the slowest variant by far, is left out of a sweep past this many terms: it would take
// minutes a row with atomics.
constexpr double kScatterSweepLimit = 2e9;

struct SweepParams {
  // Timed runs per row, after the checked one; the median is reported.
  Repeats repeats{5, kSweepMinTime};
};

// The atoms file's format from its extension, or empty when the extension does not say.
std::string format_from_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".pqr" ? "pqr" : ext == ".xyz" ? "xyz" : "";
}

// A relative atoms.file is resolved against the parameter file's folder (one given on the
// command line, against the current folder).
Params read_params(io::ParamTable& t, const std::filesystem::path& params_path, bool& automatic) {
  const Params d;
  Params p;
  const std::vector<double> origin = t.get_doubles(
      "lattice.origin", std::vector<double>(d.lattice.origin.begin(), d.lattice.origin.end()));
  if (origin.size() != 3)
    throw InputError(t.source_of("lattice.origin"), "lattice.origin",
                     "expected three numbers [x, y, z], got " + std::to_string(origin.size()));
  std::copy(origin.begin(), origin.end(), p.lattice.origin.begin());
  p.lattice.spacing = t.get_double("lattice.spacing", d.lattice.spacing);
  p.lattice.nx = t.get_int("lattice.nx");
  p.lattice.ny = t.get_int("lattice.ny");
  p.lattice.nz = t.get_int("lattice.nz");
  p.atoms_file = io::get_file(t, "atoms.file", params_path);
  const std::string inferred = format_from_extension(p.atoms_file);
  if (inferred.empty() && !t.has("atoms.format"))
    throw InputError(t.source(), "atoms.format",
                     "missing; the extension of \"" +
                         std::filesystem::path(p.atoms_file).filename().string() +
                         "\" does not say, so expected \"pqr\" or \"xyz\"");
  p.atom_format = io::get_choice(t, "atoms.format", inferred, coulomb::parse_atom_format);
  p.coulomb_constant = t.get_double("physics.coulomb_constant", d.coulomb_constant);
  p.min_distance = t.get_double("physics.min_distance", d.min_distance);
  automatic = get_variant_or_auto(t, "method.variant", p.variant, coulomb::parse_variant);
  p.block = t.get_shape("method.block", d.block);
  const std::int64_t coarsening = t.get_int("method.coarsening", d.coarsening);
  // validate() names the allowed values; out of int range becomes a value it rejects.
  p.coarsening = coarsening < 1 || coarsening > INT_MAX ? 0 : static_cast<int>(coarsening);
  p.write_dx = t.get_bool("output.dx", d.write_dx);
  return p;
}

SweepParams read_sweep_params(io::ParamTable& t) {
  SweepParams s;
  s.repeats = get_sweep_repeats(t, s.repeats.at_least);
  return s;
}

std::string extent(const Params& p) {
  return std::to_string(p.lattice.nx) + "x" + std::to_string(p.lattice.ny) + "x" +
         std::to_string(p.lattice.nz);
}

// The problem class of a choice: the lattice and the atom count, exactly
// ("lattice=256x256x256,atoms=23558").
io::AutotuneKey coulomb_key(const Params& p, std::int64_t atoms) {
  return autotune_key("coulomb", "lattice=" + extent(p) + ",atoms=" + std::to_string(atoms),
                      "float");
}

// "gather-coarse 32x8x1, 4 points per thread"
std::string method_of(const Params& p) {
  std::string method = std::string(name(p.variant)) + " " + to_string(p.block);
  if (coulomb::coarsens(p.variant))
    method += ", " + std::to_string(p.coarsening) + " points per thread";
  return method;
}

double terms(const Params& p, const std::vector<Atom>& atoms) {
  return static_cast<double>(p.lattice.points()) * static_cast<double>(atoms.size());
}

// What only the device can tell: block limits, and room for the potential, the atoms and the
// atom slices' partial sums (of the whole lattice, or of this rank's part).
void check_fits_device(const io::ParamTable& t, const Params& p, std::size_t atoms,
                       const coulomb::Part& part) {
  try {
    check_block_limits(p.block, current_device(), "method.block");
  } catch (const InputError& e) {
    throw InputError(t.source_of("method.block"), "method.block", e.expected());
  }
  const bool share = part.points() < p.lattice.points();
  require_device_memory(t.source(), "lattice",
                        "a " + extent(p) + " lattice and " + std::to_string(atoms) + " atoms need" +
                            (share ? ", for this rank's part," : ""),
                        coulomb::device_bytes(p, static_cast<std::int64_t>(atoms), part));
}
void check_fits_device(const io::ParamTable& t, const Params& p, std::size_t atoms) {
  check_fits_device(t, p, atoms, coulomb::whole(p.lattice));
}

// The float result; the gold in double on a CPU run; its potential and scale for a check: of
// `points` points (the whole lattice, or a rank's part), and `gathered` more for rank 0's OpenDX
// map of a run across ranks.
void check_fits_host(const io::ParamTable& t, const Params& p, bool cpu, bool check,
                     double points, double gathered = 0) {
  const double per_point = 4.0 + (cpu ? 8.0 : 0.0) + (check ? 16.0 : 0.0);
  require_host_memory(t.source(), "lattice", "a " + extent(p) + " lattice needs",
                      per_point * points + 4.0 * gathered);
}
void check_fits_host(const io::ParamTable& t, const Params& p, bool cpu, bool check) {
  check_fits_host(t, p, cpu, check, static_cast<double>(p.lattice.points()));
}

coulomb::ProgressCallback progress_on(ProgressLine& line) {
  return [&line](const coulomb::Progress& pr) { line.update(pr.done, pr.total, pr.seconds); };
}

// The gold and its scale at the points of `part`, with a live line: points done, atom
// evaluations a second.
coulomb::GoldWithScale gold_with_scale(const Params& p, const std::vector<Atom>& atoms,
                                       const coulomb::Part& part) {
  ProgressLine line("gold points", "atom-evals", static_cast<double>(atoms.size()));
  return coulomb::solve_gold_with_scale(p, atoms, part, progress_on(line));
}

// Floats a message of the OpenDX gather carries at most: 1 GiB, under MPI's int count of bytes.
constexpr std::size_t kGatherMessageFloats = std::size_t(1) << 28;

class CoulombRun final : public Run {
 public:
  CoulombRun(io::ParamTable& t, Params p, bool automatic)
      : t_(t), p_(std::move(p)), automatic_(automatic) {}

  void prepare(const RunSetup& setup) override {
    gpu_ = setup.gpu();
    context_ = &setup.context;
    // This rank's part, when the lattice is cut among several: the same cut on every rank, so a
    // lattice with fewer planes (rows) than ranks is refused by all of them alike.
    part_ = coulomb::whole(p_.lattice);
    if (ranks() > 1)
      io::with_sources(t_, [&] {
        part_ = coulomb::rank_part(p_.lattice, context_->rank(), ranks());
      });
    read_atoms_on_root();
    if (gpu_ && automatic_) choose_automatic(setup.options.autotune_file);
    if (gpu_) check_fits_device(t_, p_, static_cast<std::size_t>(atom_count_), part_);
    const bool gathers = ranks() > 1 && p_.write_dx && context_->is_root();
    check_fits_host(t_, p_, !gpu_, setup.options.check, static_cast<double>(part_.points()),
                    gathers ? static_cast<double>(p_.lattice.points()) : 0.0);
  }

  std::string describe() const override {
    std::string method = "CPU gold solver";
    if (gpu_)
      method = method_of(p_) + (automatic_ ? auto_.described() : "") + " on " +
               current_device().name;
    return extent(p_) + " lattice at spacing " + short_number(p_.lattice.spacing) + ", " +
           std::to_string(atom_count_) + " atoms from " + p_.atoms_file + "; " + method;
  }

  std::vector<std::filesystem::path> sidecars(const std::filesystem::path& result) const override {
    std::vector<std::filesystem::path> paths{io::xdmf_path_for(result)};
    if (p_.write_dx) paths.push_back(std::filesystem::path(result).replace_extension(".dx"));
    return paths;
  }

  void write_method(io::ResultFile& out) const override {
    out.set_attribute("/method", "variant", std::string(name(p_.variant)));
    out.set_attribute("/method", "block",
                      std::vector<std::int64_t>{p_.block.x, p_.block.y, p_.block.z});
    out.set_attribute("/method", "coarsening", std::int64_t{p_.coarsening});
    out.set_attribute("/method", "chosen_by", automatic_ ? auto_.chosen_by() : "parameters");
    if (automatic_) out.set_attribute("/method", "autotune_file", auto_.file.string());
  }

  // Across ranks: the atoms' broadcast, the part's sums, then the potential's range and the
  // slowest rank's compute time (three numbers each), and for an OpenDX map every part sent to
  // rank 0. The communication is the "exchange" phase, the wait for the slowest rank "wait".
  void solve(PhaseTimer& timings, io::ResultFile*) override {
    double exchanged = context_->comm_seconds();
    if (ranks() > 1) context_->broadcast(atoms_);
    exchanged = context_->comm_seconds() - exchanged;
    if (gpu_) {
      ProgressLine line("atoms", "atom-evals", static_cast<double>(part_.points()));
      result_ = coulomb::solve_gpu(p_, atoms_, part_, progress_on(line));
    } else {
      ProgressLine line("points", "atom-evals", static_cast<double>(atoms_.size()));
      const auto start = std::chrono::steady_clock::now();
      const std::vector<double> gold = coulomb::solve_gold(p_, atoms_, part_, progress_on(line));
      result_.timings.compute = seconds_since(start);
      result_.potential.assign(gold.begin(), gold.end());
    }
    compute_seconds_ = result_.timings.compute;
    if (!result_.potential.empty()) {
      const auto [low, high] =
          std::minmax_element(result_.potential.begin(), result_.potential.end());
      low_ = *low;
      high_ = *high;
    }
    if (ranks() > 1) {
      timings.add("wait", wait_for_ranks(*context_));
      const double before = context_->comm_seconds();
      low_ = context_->all_reduce(low_, comm::Op::min);
      high_ = context_->all_reduce(high_, comm::Op::max);
      compute_seconds_ = context_->all_reduce(compute_seconds_, comm::Op::max);
      if (p_.write_dx) gather_for_dx();
      timings.add("exchange", exchanged + context_->comm_seconds() - before);
    }
    timings.add("host_to_device", result_.timings.host_to_device);
    timings.add("compute", result_.timings.compute);
    timings.add("device_to_host", result_.timings.device_to_host);
  }

  double work() const override { return terms(p_, atoms_); }

  void report(io::ResultFile& out) override {
    double charge = 0;
    for (const Atom& a : atoms_) charge += a.q;
    const double rate = terms(p_, atoms_) / compute_seconds_;
    out.set_attribute("/timings", "atom_evaluations_per_s", rate);
    out.set_attribute("/atoms", "count", static_cast<std::int64_t>(atoms_.size()));
    out.set_attribute("/atoms", "total_charge", charge);
    out.set_attribute("/atoms", "file", p_.atoms_file);
    if (ranks() > 1) {
      out.set_attribute("/method", "ranks", std::int64_t{ranks()});
      out.set_attribute("/method", "decomposition",
                        std::string(coulomb::cuts_planes(p_.lattice) ? "slabs of z planes"
                                                                     : "bands of y rows"));
    }
    char line[192];
    std::snprintf(line, sizeof line,
                  "potential from %.6g to %.6g; total charge %.4g; %.3f s, %.3f G atom-evals/s",
                  low_, high_, charge, compute_seconds_, 1e-9 * rate);
    say(line);
  }

  // A CPU run's result is the gold itself, rounded to float. Across ranks each judges its own
  // part by the gold on it, and the measures are combined.
  Agreement check() override {
    const coulomb::GoldWithScale gold = gold_with_scale(p_, atoms_, part_);
    const double tolerance = gpu_ ? coulomb::tolerance(p_.variant, atoms_.size())
                                  : coulomb::kRoundedGoldTolerance;
    if (ranks() == 1)
      return coulomb::agreement(result_.potential, gold.potential, gold.scale, tolerance);
    FieldDifference d =
        over_ranks(*context_, compare(result_.potential, gold.potential),
                   result_.potential.size(), static_cast<std::uint64_t>(p_.lattice.points()));
    double relative = max_over_ranks(
        *context_, max_relative_to_scale(result_.potential, gold.potential, gold.scale));
    // A NaN on any rank fails the whole run.
    if (std::isnan(d.max_abs) || std::isnan(relative)) {
      d = {NAN, NAN};
      relative = NAN;
    }
    return field_agreement(d, "max_relative_to_scale", "max relative to scale", relative,
                           tolerance);
  }

  void write(Output& out) override {
    const coulomb::Lattice& n = p_.lattice;
    const std::vector<std::uint64_t> dims{std::uint64_t(n.nz), std::uint64_t(n.ny),
                                          std::uint64_t(n.nx)};
    if (ranks() == 1) {
      out.file->write_field(kField, result_.potential.data(), dims);
    } else {
      write_part(out, dims);
      if (out.file == nullptr) return;
    }
    out.file->set_attribute(kField, "origin",
                           std::vector<double>(n.origin.begin(), n.origin.end()));
    out.file->set_attribute(kField, "spacing", n.spacing);
    out.file->set_attribute(kField, "layout", std::string("[nz][ny][nx], x fastest"));
    io::UniformGrid3 grid;
    grid.points = {std::uint64_t(n.nx), std::uint64_t(n.ny), std::uint64_t(n.nz)};
    grid.origin = n.origin;
    grid.spacing = {n.spacing, n.spacing, n.spacing};
    const std::filesystem::path& path = out.file->path();
    out.sidecars.push_back({io::xdmf_path_for(path),
                            io::xdmf_text(path.filename().string(), grid,
                                          {kField, "potential", 4})});
    if (!p_.write_dx) return;
    const float* values = ranks() == 1 ? result_.potential.data() : gathered_.data();
    out.sidecars.push_back(
        {std::filesystem::path(path).replace_extension(".dx"),
         io::dx_text({n.origin, n.spacing, n.nx, n.ny, n.nz}, values,
                     "Coulomb potential by direct summation (parasol coulomb)\n" +
                         std::to_string(atoms_.size()) + " atoms from " + p_.atoms_file +
                         "\ncoulomb_constant " + std::to_string(p_.coulomb_constant))});
  }

 private:
  static constexpr const char* kField = "/fields/potential";

  int ranks() const { return context_->size(); }

  // Rank 0 reads the atoms (solve() broadcasts them); the others learn how many there are, or
  // that rank 0 could not read them, in which case rank 0's error is the run's one line.
  void read_atoms_on_root() {
    std::int64_t count = -1;
    std::exception_ptr failed;
    if (context_->is_root()) {
      try {
        atoms_ = coulomb::read_atoms(p_.atoms_file, p_.atom_format);
        count = static_cast<std::int64_t>(atoms_.size());
      } catch (...) {
        failed = std::current_exception();
      }
    }
    if (ranks() > 1) context_->broadcast(count);
    if (failed) std::rethrow_exception(failed);
    if (count < 0) throw Error("rank 0 could not read the atoms");
    atom_count_ = count;
  }

  // The one OpenDX writer, rank 0, needs the whole map: every other rank sends its part, in
  // rank order, into its place (each part is one run of the lattice's order). The only lattice
  // data that goes between ranks, and only with output.dx.
  void gather_for_dx() {
    const auto send_in_parts = [&](float* data, std::size_t count, int peer, bool sending) {
      for (std::size_t first = 0; first < count; first += kGatherMessageFloats) {
        const std::size_t n = std::min(kGatherMessageFloats, count - first);
        if (sending) context_->send(data + first, n, peer);
        else context_->recv(data + first, n, peer);
      }
    };
    if (!context_->is_root()) {
      send_in_parts(result_.potential.data(), result_.potential.size(), 0, true);
      return;
    }
    gathered_.resize(static_cast<std::size_t>(p_.lattice.points()));
    std::copy(result_.potential.begin(), result_.potential.end(), gathered_.begin());
    for (int r = 1; r < ranks(); ++r) {
      const coulomb::Part part = coulomb::rank_part(p_.lattice, r, ranks());
      send_in_parts(gathered_.data() + part.first_point(p_.lattice),
                    static_cast<std::size_t>(part.points()), r, false);
    }
  }

  // This rank's block of the potential in the dataset rank 0 makes whole.
  void write_part(Output& out, const std::vector<std::uint64_t>& dims) const {
    const std::vector<std::uint64_t> offset{std::uint64_t(part_.k_first),
                                            std::uint64_t(part_.j_first), 0};
    const std::vector<std::uint64_t> count{std::uint64_t(part_.nz), std::uint64_t(part_.ny),
                                           std::uint64_t(part_.nx)};
    if (out.file != nullptr) {
      out.file->create_dataset<float>(kField, dims);
      out.file->write_hyperslab(kField, offset, count, result_.potential.data());
    } else {
      out.part->write_hyperslab(kField, offset, count, result_.potential.data());
    }
  }

  // method.variant = "auto": the variant, block and coarsening stored for this problem, or the
  // defaults (and a note on stderr) when none is.
  void choose_automatic(const std::filesystem::path& given) {
    const Params d;
    p_.variant = d.variant;
    p_.block = d.block;
    p_.coarsening = d.coarsening;
    auto_ = look_up_choice(given, coulomb_key(p_, atom_count_), method_of(p_));
    if (!auto_.choice) return;
    const io::AutotuneChoice& c = *auto_.choice;
    std::string axis = "variant";
    try {
      p_.variant = coulomb::parse_variant(c.variant);
      axis = "block";
      const std::string block = c.axis("block").value_or("");
      if (block != "-") {
        const std::optional<Shape> shape = shape_from_string(block);
        if (!shape) throw InputError("expected a block shape such as \"32x8x1\", got \"" + block + "\"");
        p_.block = *shape;
      }
    } catch (const InputError& e) {
      throw auto_.unusable(e, axis);
    }
    p_.coarsening = static_cast<int>(auto_.integer("coarsening", 1, 64, "points per thread"));
    try {
      p_.validate();
    } catch (const InputError& e) {
      throw auto_.unusable(e, "coarsening");
    }
  }

  io::ParamTable& t_;
  Params p_;
  bool automatic_;
  AutoChoice auto_;  // with method.variant = "auto": what the autotune file held
  bool gpu_ = false;
  comm::Context* context_ = nullptr;
  coulomb::Part part_;            // this rank's points: the whole lattice on one rank
  std::int64_t atom_count_ = 0;   // known on every rank once prepared; atoms_ on rank 0 alone
  std::vector<Atom> atoms_;       // on every rank once solve() broadcast them
  coulomb::Result result_;        // this rank's part
  double low_ = NAN, high_ = NAN;  // the whole potential's range
  double compute_seconds_ = 0;    // the slowest rank's
  std::vector<float> gathered_;   // rank 0's whole potential for the OpenDX map, across ranks
};

class CoulombStudy final : public Study {
 public:
  CoulombStudy(io::ParamTable& t, Params p, SweepParams s) : t_(t), p_(std::move(p)), s_(s) {}

  void prepare() override {
    atoms_ = coulomb::read_atoms(p_.atoms_file, p_.atom_format);
    // scatter ignores the block and the coarsening: one row.
    configurations_.push_back({Variant::scatter, p_.block, 1});
    for (Variant v : coulomb::kVariants)
      for (const Shape& b : coulomb::compiled_shapes())
        for (int c : coulomb::kCoarsenings)
          if (v != Variant::scatter && (c == 1 || coulomb::coarsens(v)))
            configurations_.push_back({v, b, c});
    const Config* largest = &configurations_.front();
    for (const Config& c : configurations_)
      if (coulomb::device_bytes(with(c), atom_count()) > coulomb::device_bytes(with(*largest), atom_count()))
        largest = &c;
    check_fits_device(t_, with(*largest), atoms_.size());
    check_fits_host(t_, p_, false, true);
    stream_.emplace();
    rsqrt_ = coulomb::measure_rsqrt_throughput();
    rows_ = coulomb::sampled_rows(p_.lattice, coulomb::kSweepCheckStride);
    {
      ProgressLine line("gold points", "atom-evals", static_cast<double>(atoms_.size()));
      gold_ = coulomb::solve_gold_with_scale_rows(p_, atoms_, rows_, progress_on(line));
    }
    problem_.emplace(p_, atoms_, *stream_);
  }

  std::string describe() const override {
    return extent(p_) + " lattice, " + std::to_string(atoms_.size()) + " atoms on " +
           current_device().name + "; rsqrtf " + short_number(1e-9 * rsqrt_) + " G/s";
  }

  SweepColumns columns() const override {
    return {{{"variant", "variant", 14}, {"block", "block", 9}, {"coarsening", "coarse", 6}},
            {"gatom_evals_per_s", "G atom-evals/s", 15, 2},
            SweepColumns::Roofline{{"grsqrt_per_s", "G rsqrt/s", 10, 1},
                                   {"percent_of_rsqrt", "% rsqrt", 8, 1}},
            {"max_relative_to_scale", "max rel err", 11, 2, 'g'},
            {}};
  }

  std::vector<std::vector<Cell>> configurations() override {
    std::vector<std::vector<Cell>> cells;
    for (const Config& c : configurations_)
      cells.push_back({std::string(name(c.variant)),
                       c.variant == Variant::scatter ? std::string("-") : to_string(c.block),
                       std::int64_t{c.coarsening}});
    return cells;
  }

  // The first run, on a potential poisoned with NaN, is checked (and warms up); the rest timed.
  Measurement measure(std::size_t i) override {
    const Config& c = configurations_[i];
    Measurement m;
    if (c.variant == Variant::scatter && terms(p_, atoms_) > kScatterSweepLimit) {
      m.skipped = "scatter skipped: " + short_number(terms(p_, atoms_)) + " atom evaluations (over " +
                  short_number(kScatterSweepLimit) + ") would take too long with atomics";
      return m;
    }
    const auto run = [&] { problem_->run(c.variant, c.block, c.coarsening); };
    problem_->poison();
    run();
    m.agreement = coulomb::agreement_at_rows(problem_->download(), p_.lattice.nx, rows_, gold_,
                                             coulomb::tolerance(c.variant, atoms_.size()));
    m.seconds = timed_runs(*stream_, s_.repeats, run);
    return m;
  }

  double units_per_run() const override { return terms(p_, atoms_); }
  double roofline_per_run() const override { return terms(p_, atoms_); }  // one rsqrt a term
  double ceiling_per_second() const override { return rsqrt_; }

  void write_attributes(io::ResultFile& out) const override {
    out.set_attribute("/sweep", "rsqrt_per_s", rsqrt_);
    out.set_attribute("/sweep", "points", p_.lattice.points());
    out.set_attribute("/sweep", "atoms", atom_count());
    out.set_attribute("/sweep", "check_tolerance",
                      coulomb::tolerance(Variant::gather, atoms_.size()));
    out.set_attribute("/sweep", "scatter_check_tolerance",
                      coulomb::tolerance(Variant::scatter, atoms_.size()));
    out.set_attribute("/sweep", "checked_rows", static_cast<std::int64_t>(rows_.size()));
  }

  bool can_autotune() const override { return true; }
  std::optional<io::AutotuneChoice> autotune_choice(std::size_t i) const override {
    const Config& k = configurations_[i];
    io::AutotuneChoice c;
    c.key = coulomb_key(p_, atom_count());
    c.variant = name(k.variant);
    c.axes = {{"block", k.variant == Variant::scatter ? std::string("-") : to_string(k.block)},
              {"coarsening", std::to_string(k.coarsening)}};
    return c;
  }

  InputError nothing_to_time() const override {
    return InputError(t_.source(), "sweep", "no variant, block and coarsening to time");
  }

 private:
  struct Config {
    Variant variant;
    Shape block;
    int coarsening;
  };
  Params with(const Config& c) const {
    Params q = p_;
    q.variant = c.variant;
    q.block = c.block;
    q.coarsening = c.coarsening;
    return q;
  }
  std::int64_t atom_count() const { return static_cast<std::int64_t>(atoms_.size()); }

  io::ParamTable& t_;
  Params p_;
  SweepParams s_;
  std::vector<Atom> atoms_;
  std::vector<Config> configurations_;
  double rsqrt_ = 0;
  std::vector<std::int64_t> rows_;  // the x rows each configuration is checked at
  coulomb::GoldWithScale gold_;     // the gold of those rows
  std::optional<Stream> stream_;  // made once a device is known to be there
  std::optional<coulomb::DeviceProblem> problem_;  // the atoms, uploaded once
};

std::unique_ptr<Run> make_run(io::ParamTable& t, const std::filesystem::path& params_path) {
  bool automatic = false;
  Params p = io::read_checked(t, [&] { return read_params(t, params_path, automatic); },
                              [&] { return read_sweep_params(t); }).first;
  return std::make_unique<CoulombRun>(t, std::move(p), automatic);
}

std::unique_ptr<Study> make_study(io::ParamTable& t, const std::filesystem::path& params_path) {
  bool automatic = false;
  auto [p, s] = io::read_checked(t, [&] { return read_params(t, params_path, automatic); },
                                 [&] { return read_sweep_params(t); });
  return std::make_unique<CoulombStudy>(t, std::move(p), s);
}

}  // namespace

Binding coulomb_binding() {
  return {"coulomb", "electrostatic potential of point charges on a lattice by direct summation",
          make_run, make_study, {"method.variant", "method.block", "method.coarsening"},
          /*across_ranks=*/true};
}

}  // namespace parasol::app
