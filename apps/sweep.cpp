// `parasol sweep`: the run's front, then every configuration checked against the gold and timed,
// one table printed and stored, and the fastest passing one kept for autotune.
#include "apps/driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>

#include "apps/binding.hpp"
#include "apps/ranks.hpp"
#include "apps/profile.hpp"
#include "apps/progress.hpp"
#include "apps/provenance.hpp"
#include "apps/results_table.hpp"
#include "comm/context.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/timed_runs.hpp"
#include "parasol/version.hpp"


namespace parasol::app {

namespace {

// The kernel that did most of a configuration's work (launches x blocks x threads): the one
// whose occupancy and limiter its row shows. Null when none was noted.
const KernelRecord* main_kernel(const std::vector<KernelRecord>& kernels) {
  const KernelRecord* most = nullptr;
  double most_work = -1;
  for (const KernelRecord& k : kernels) {
    const double work = static_cast<double>(k.launches) * static_cast<double>(k.grid_blocks) *
                        static_cast<double>(k.block_threads);
    if (work > most_work) {
      most = &k;
      most_work = work;
    }
  }
  return most;
}

// Seconds inside a configuration's timed repeats.
double timed_seconds(const Measurement& m) {
  if (m.timed_s > 0) return m.timed_s;
  double sum = 0;
  for (double s : m.seconds) sum += s;
  return sum;
}

// A sweep's table as rows come in: the solver's axes, then median, spread, rate, the roofline,
// the check and the solver's extras (and, on a GPU, the main kernel's occupancy and limiter);
// with the fastest row that agreed with the gold.
class SweepTable {
 public:
  // `kernels`: the main kernel's columns (a GPU sweep); `ranks` > 1: a sweep across ranks, with
  // the exchange, its hidden share and the rate per GPU.
  SweepTable(const SweepColumns& c, double units, double roofline, double ceiling,
             bool kernels = false, int ranks = 1)
      : c_(c), units_(units), roofline_(roofline), ceiling_(ceiling), kernels_(kernels),
        ranks_(ranks), table_(columns(c, kernels, ranks)) {}

  void add(std::vector<Cell> row, const Measurement& m, std::size_t configuration) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const bool timed = !m.seconds.empty();
    timed_s_ += timed_seconds(m);
    const double middle = timed ? median(m.seconds) : nan;
    double low = nan, high = nan;
    if (timed) {
      const auto [lo, hi] = std::minmax_element(m.seconds.begin(), m.seconds.end());
      low = *lo;
      high = *hi;
    }
    min_s_.push_back(low);
    max_s_.push_back(high);
    wall_s_.push_back(m.wall_s);
    row.push_back(middle);
    row.push_back(100.0 * (high - low) / middle);
    row.push_back(units_ > 0 ? 1e-9 * units_ / middle : nan);
    std::vector<std::pair<std::string, double>>& measured = measured_[configuration];
    measured = {{"median_s", middle}, {c_.rate.name, std::get<double>(row.back())}};
    if (c_.roofline) {
      row.push_back(1e-9 * roofline_ / middle);
      measured.emplace_back(c_.roofline->throughput.name, std::get<double>(row.back()));
      row.push_back(100.0 * roofline_ / middle / ceiling_);
      measured.emplace_back(c_.roofline->percent.name, std::get<double>(row.back()));
    }
    row.push_back(m.agreement.value);
    row.insert(row.end(), m.extras.begin(), m.extras.end());
    if (ranks_ > 1) {
      row.push_back(m.exchange_seconds);
      row.push_back(100.0 * m.hidden_fraction);
      row.push_back(units_ > 0 ? 1e-9 * units_ / middle / ranks_ : nan);
    }
    if (kernels_) {
      const KernelRecord* k = main_kernel(m.kernels);
      row.push_back(k != nullptr ? k->name : std::string("-"));
      row.push_back(k != nullptr ? 100.0 * k->occupancy : nan);
      row.push_back(k != nullptr ? k->limiter : std::string("-"));
      for (const KernelRecord& r : m.kernels) launched_.push_back({rows_, r});
    }
    row_of_[configuration] = rows_;
    if (const KernelRecord* k = main_kernel(m.kernels)) kernel_of_[configuration] = k->name;
    if (timed && (!slowest_ || middle > slowest_seconds_)) {
      slowest_ = configuration;
      slowest_seconds_ = middle;
    }
    ++rows_;
    const bool passed = timed && m.agreement.passed();
    table_.add(std::move(row), middle, passed);
    if (passed && (!fastest_ || middle < fastest_seconds_)) {
      fastest_ = configuration;
      fastest_seconds_ = middle;
    }
  }

  bool empty() const { return table_.empty(); }
  double timed_s() const { return timed_s_; }
  // What a configuration measured: median_s, the rate and the roofline's columns by name.
  std::vector<std::pair<std::string, double>> measured(std::size_t configuration) const {
    const auto found = measured_.find(configuration);
    return found != measured_.end() ? found->second : std::vector<std::pair<std::string, double>>{};
  }
  bool all_passed() const { return table_.all_passed(); }
  std::optional<std::size_t> fastest() const { return fastest_; }
  // The slowest configuration that was timed, passed or not.
  std::optional<std::size_t> slowest() const { return slowest_; }
  // A configuration's row in the table, and its main kernel's name ("" when none was noted).
  std::size_t row_of(std::size_t configuration) const { return row_of_.at(configuration); }
  std::string kernel_of(std::size_t configuration) const {
    const auto found = kernel_of_.find(configuration);
    return found != kernel_of_.end() ? found->second : std::string();
  }

  void print_and_write(io::ResultFile& out) const {
    if (is_speaker()) table_.print(std::cout);
    table_.write(out, "/sweep");
    out.write_column("/sweep/min_s", min_s_);
    out.write_column("/sweep/max_s", max_s_);
    out.write_column("/sweep/wall_s", wall_s_);
    // What each column is, so a reader (tools/plot_sweep.py, a notebook) takes any solver's sweep alike.
    const auto names = [](const std::vector<ResultsTable::Column>& columns) {
      std::string text;
      for (const ResultsTable::Column& c : columns) text += (text.empty() ? "" : ", ") + c.name;
      return text;
    };
    out.set_attribute("/sweep", "axis_columns", names(c_.axes));
    out.set_attribute("/sweep", "rate_column", c_.rate.name);
    if (c_.roofline) {
      out.set_attribute("/sweep", "throughput_column", c_.roofline->throughput.name);
      out.set_attribute("/sweep", "roofline_column", c_.roofline->percent.name);
    }
    out.set_attribute("/sweep", "check_column", c_.check.name);
    out.set_attribute("/sweep", "extra_columns", names(c_.extras));
    if (kernels_) {
      out.set_attribute("/sweep", "kernel_columns", names(kernel_columns()));
      write_kernels(out);
    }
  }

 private:
  // The main kernel's name, theoretical occupancy and limiter, after the solver's extras.
  static std::vector<ResultsTable::Column> kernel_columns() {
    return {{"kernel", "kernel", 22}, {"occupancy_percent", "occ %", 6, 0},
            {"limiter", "limited by", 14}};
  }

  // /sweep/kernels: every kernel each row launched, one dataset per field, `row` naming the
  // /sweep row (docs/hdf5-layout.md).
  void write_kernels(io::ResultFile& out) const {
    if (launched_.empty()) return;
    const std::string g = "/sweep/kernels/";
    std::vector<std::int64_t> rows;
    for (const auto& launch : launched_) rows.push_back(static_cast<std::int64_t>(launch.first));
    out.write_column(g + "row", rows);
    // One field of every launch's record as a column; whole numbers as 64-bit integers.
    const auto column = [&](const std::string& name, auto field) {
      using Field = std::decay_t<decltype(launched_.front().second.*field)>;
      std::vector<std::conditional_t<std::is_same_v<Field, int>, std::int64_t, Field>> values;
      for (const auto& launch : launched_) values.push_back(launch.second.*field);
      out.write_column(g + name, values);
    };
    column("name", &KernelRecord::name);
    column("block", &KernelRecord::block);
    column("block_threads", &KernelRecord::block_threads);
    column("grid_blocks", &KernelRecord::grid_blocks);
    column("launches", &KernelRecord::launches);
    column("registers", &KernelRecord::registers);
    column("local_bytes", &KernelRecord::local_bytes);
    column("static_shared_bytes", &KernelRecord::static_shared);
    column("dynamic_shared_bytes", &KernelRecord::dynamic_shared);
    column("max_threads_per_block", &KernelRecord::max_threads_per_block);
    column("blocks_per_sm", &KernelRecord::blocks_per_sm);
    column("occupancy", &KernelRecord::occupancy);
    column("limiter", &KernelRecord::limiter);
    column("waves_per_sm", &KernelRecord::waves);
  }

  static std::vector<ResultsTable::Column> columns(const SweepColumns& c, bool kernels,
                                                   int ranks) {
    std::vector<ResultsTable::Column> all = c.axes;
    all.push_back({"median_s", "median ms", 11, 4, 'f', 1e3});
    all.push_back({"spread_percent", "spread %", 8, 1});
    all.push_back(c.rate);
    if (c.roofline) {
      all.push_back(c.roofline->throughput);
      all.push_back(c.roofline->percent);
    }
    all.push_back(c.check);
    all.insert(all.end(), c.extras.begin(), c.extras.end());
    if (ranks > 1) {
      all.push_back({"exchange_s", "exch ms", 9, 4, 'f', 1e3});
      all.push_back({"hidden_percent", "hidden %", 8, 0});
      ResultsTable::Column per_gpu = c.rate;
      per_gpu.name = "rate_per_gpu";
      per_gpu.header += " /GPU";
      per_gpu.width += 5;
      all.push_back(per_gpu);
    }
    if (kernels) {
      const std::vector<ResultsTable::Column> k = kernel_columns();
      all.insert(all.end(), k.begin(), k.end());
    }
    return all;
  }

  SweepColumns c_;
  double units_, roofline_, ceiling_;
  bool kernels_;
  int ranks_;
  ResultsTable table_;
  std::size_t rows_ = 0;
  std::vector<std::pair<std::size_t, KernelRecord>> launched_;  // (row, kernel)
  std::map<std::size_t, std::vector<std::pair<std::string, double>>> measured_;
  double timed_s_ = 0;
  std::vector<double> min_s_, max_s_, wall_s_;
  std::optional<std::size_t> fastest_, slowest_;
  double fastest_seconds_ = 0, slowest_seconds_ = 0;
  std::map<std::size_t, std::size_t> row_of_;
  std::map<std::size_t, std::string> kernel_of_;
};

// Where a sweep's wall time went: until its first configuration (reading, the inputs, the gold,
// the device's setup) and over its configurations (each one's check, warm-up, transfers and
// timed repeats); the rest is writing.
struct SweepClock {
  std::chrono::steady_clock::time_point started;
  double before_configurations = 0;  // seconds from the start to the first configuration
  double configurations = 0;         // seconds over every configuration

  void configurations_begin() { before_configurations = seconds_since(started); }
  void configurations_end() { configurations = seconds_since(started) - before_configurations; }
};

// What a sweep spent outside its timed repeats (reading, the gold, each configuration's check
// and warm-up, writing) as a share of its wall time so far, and where: stored in /sweep and said.
void write_overhead(io::ResultFile& out, double timed, const SweepClock& clock) {
  const double wall = seconds_since(clock.started);
  const double fraction = wall > 0 ? std::max(0.0, 1.0 - timed / wall) : 0.0;
  out.set_attribute("/sweep", "timed_s", timed);
  out.set_attribute("/sweep", "wall_s", wall);
  out.set_attribute("/sweep", "sweep_overhead_fraction", fraction);
  out.set_attribute("/sweep", "before_configurations_s", clock.before_configurations);
  out.set_attribute("/sweep", "configurations_s", clock.configurations);
  char line[256];
  std::snprintf(line, sizeof line,
                "timed repeats %.3g s of %.3g s wall: sweep overhead %.0f %% (%.3g s before the "
                "first configuration: inputs, gold, setup; %.3g s of checks, warm-ups and "
                "transfers around the repeats)",
                timed, wall, 100.0 * fraction, clock.before_configurations,
                std::max(0.0, clock.configurations - timed));
  say(line);
}

// A word for a shell command line, in single quotes.
std::string shell_quoted(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// --profile: ncu on PATH, or an InputError before anything is timed.
std::filesystem::path ncu_or_refuse() {
  const std::optional<std::filesystem::path> ncu = find_on_path("ncu");
  if (!ncu)
    throw InputError("command line", "--profile",
                     "needs Nsight Compute's ncu on PATH (with the CUDA toolkit: "
                     "/usr/local/cuda/bin); none was found");
  return *ncu;
}

// --profile: the best and the worst configuration run again, each as `parasol run` of the
// sweep's file with its overrides and the configuration's, under ncu; the longest launch of the
// row's main kernel stands for it. Stored under /sweep/profile, one row per configuration
// profiled; a configuration ncu could not profile is said and left out.
void profile_extremes(io::ResultFile& out, const std::filesystem::path& ncu, const Study& study,
                      const SweepTable& table, const SweepOptions& options,
                      const std::vector<std::string>& overrides) {
  std::vector<std::pair<std::string, std::size_t>> picked;
  if (table.fastest()) picked.emplace_back("best", *table.fastest());
  if (table.slowest() && table.slowest() != table.fastest())
    picked.emplace_back("worst", *table.slowest());
  std::vector<std::string> which, kernel, stall;
  std::vector<std::int64_t> rows;
  std::vector<double> occupancy, dram, duration;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() /
      ("parasol-profile-" + std::to_string(getpid()));
  std::filesystem::create_directories(scratch);
  for (const auto& [role, configuration] : picked) {
    const std::vector<std::string> mine = study.run_overrides(configuration);
    if (mine.empty()) {
      say("profile: the " + role + " configuration cannot be run alone; not profiled");
      continue;
    }
    const std::filesystem::path log = scratch / (role + "-ncu.csv");
    const std::string main_kernel = table.kernel_of(configuration);
    std::string command = shell_quoted(ncu.string()) +
                          " --csv --page raw --section WarpStateStats --metrics " +
                          std::string(kAchievedOccupancy) + "," + kDramThroughput + "," +
                          kDuration + " --launch-count " + (main_kernel.empty() ? "20" : "3") +
                          (main_kernel.empty() ? "" : " --kernel-name " + shell_quoted("regex:" + main_kernel)) +
                          " --log-file " + shell_quoted(log.string()) + " " +
                          shell_quoted(self.string()) + " run " +
                          shell_quoted(options.params_path.string());
    for (const std::string& o : overrides) command += " " + shell_quoted(o);
    for (const std::string& o : mine) command += " " + shell_quoted(o);
    command += " -o " + shell_quoted((scratch / (role + ".h5")).string()) + " --force > " +
               shell_quoted((scratch / (role + "-run.log")).string()) + " 2>&1";
    say("profile: the " + role + " configuration under ncu (" + main_kernel + ")");
    const int status = std::system(command.c_str());
    std::ifstream in(log);
    std::ostringstream text;
    text << in.rdbuf();
    std::optional<KernelProfile> k;
    try {
      k = longest(parse_ncu_csv(text.str()));
    } catch (const Error& e) {
      say("profile: " + role + ": " + e.what() + " (ncu exit status " + std::to_string(status) +
          "; its log: " + log.string() + ")");
      continue;
    }
    if (!k) {
      say("profile: " + role + ": ncu profiled no launch (its log: " + log.string() + ")");
      continue;
    }
    which.push_back(role);
    rows.push_back(static_cast<std::int64_t>(table.row_of(configuration)));
    kernel.push_back(k->kernel);
    occupancy.push_back(k->achieved_occupancy_percent);
    dram.push_back(k->dram_throughput_percent);
    duration.push_back(k->duration_ns);
    stall.push_back(k->top_stall.empty() ? "-" : k->top_stall);
    char line[256];
    std::snprintf(line, sizeof line,
                  "profile: %s: achieved occupancy %.1f %%, DRAM throughput %.1f %% of peak, "
                  "top stall %s",
                  role.c_str(), k->achieved_occupancy_percent, k->dram_throughput_percent,
                  stall.back().c_str());
    say(line);
  }
  std::error_code ignored;
  if (which.size() == picked.size()) std::filesystem::remove_all(scratch, ignored);
  if (which.empty()) return;
  const std::string g = "/sweep/profile/";
  out.write_column(g + "which", which);
  out.write_column(g + "row", rows);
  out.write_column(g + "kernel", kernel);
  out.write_column(g + "achieved_occupancy_percent", occupancy);
  out.write_column(g + "dram_throughput_percent", dram);
  out.write_column(g + "top_stall_reason", stall);
  out.write_column(g + "duration_ns", duration);
}

// --autotune's file, read now so that one that cannot be used fails before any timing; empty
// without --autotune.
std::filesystem::path autotune_file_of(const SweepOptions& options) {
  if (!options.autotune) return {};
  const std::filesystem::path file = io::autotune_path(options.autotune_file);
  (void)io::AutotuneFile::load(file);
  io::require_storable(file);
  return file;
}

// --autotune: `choice`, the fastest agreeing row of `table` (of `timed` configurations) in the
// sweep file `sweep`, stored in `file` with its measurement and provenance, and said with
// `then` after it. Status 1, and nothing stored, when no row agreed (`what`: "configuration").
int store_fastest(std::optional<io::AutotuneChoice> choice, const SweepTable& table,
                  std::size_t timed, const std::filesystem::path& sweep,
                  const std::filesystem::path& file, const std::string& what,
                  const std::string& then = "") {
  if (!table.fastest() || !choice) {
    std::cerr << "parasol: --autotune: no " << what << " agreed with the gold; nothing stored in "
              << file.string() << "\n";
    return 1;
  }
  choice->timed = static_cast<std::int64_t>(timed);
  choice->measured = table.measured(*table.fastest());
  choice->date = utc_now();
  choice->sweep_file = std::filesystem::absolute(sweep).string();
  choice->parasol_version = std::string(kVersion) + " (" + kGitDescribe + ")";
  // Read again, under the file's lock, rather than reuse a copy read at the start: another
  // sweep may have stored a choice for another problem meanwhile.
  io::AutotuneFile::store(file, *choice);
  say("autotune: " + choice->describe() + " stored for " + io::describe(choice->key) + " in " +
      file.string() + then);
  return 0;
}

// 1, 2, 4, ... up to the thread count in force (--threads, else the cores this process may use),
// and that count itself.
std::vector<int> thread_counts() {
  const int most = cpu_threads();
  std::vector<int> counts;
  for (int n = 1; n < most; n *= 2) counts.push_back(n);
  counts.push_back(most);
  return counts;
}

// `parasol sweep --backend cpu`: the CPU solver run whole at each thread count, its compute
// phase timed three times, its result checked against the gold. A sweep file made without a GPU.
int cpu_sweep(comm::Context& context, const SweepOptions& options, io::ParamTable& params,
              const Binding& binding, const Study& study,
              std::chrono::steady_clock::time_point started) {
  constexpr int kRepeats = 3;
  RunOptions run_options;
  run_options.params_path = options.params_path;
  const RunSetup setup{run_options, Backend::cpu, {}, context};
  const std::filesystem::path autotune_file = autotune_file_of(options);
  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  io::ResultFile out(path, options.force, options.compression);
  write_parameters(out, params);
  write_provenance(out, binding.name, Backend::cpu, options.command_line);

  SweepColumns c = study.columns();
  c.axes = {{"backend", "backend", 8}, {"threads", "threads", 7}};
  c.roofline.reset();
  c.extras.clear();
  std::unique_ptr<Run> run = binding.make_run(params, options.params_path);
  run->prepare(setup);
  if (is_speaker())
    std::cout << binding.name << " sweep: " << run->describe() << "; " << kRepeats
              << " timed runs at each thread count\n";
  const int threads_in_force = cpu_threads();
  double units = 0;
  std::vector<std::pair<std::vector<Cell>, Measurement>> rows;
  // Prepared once: a solve starts from the prepared inputs every time, so the inputs made on the
  // host (a long series, a batch of grids) are not made again for each repeat.
  SweepClock clock{started};
  clock.configurations_begin();
  const std::vector<int> counts = thread_counts();
  for (int threads : counts) {
    set_cpu_threads(threads);
    Measurement m;
    const auto began = std::chrono::steady_clock::now();
    for (int r = 0; r < kRepeats; ++r) {
      PhaseTimer timings;
      run->solve(timings, &out);
      // The solver's own phases (compute; montecarlo's paths), not the moving of data.
      double solving = 0;
      for (const auto& [name, seconds] : timings.phases())
        if (name != phase::setup && name != phase::host_to_device &&
            name != phase::device_to_host && name != phase::read && name != phase::write &&
            name != phase::check)
          solving += seconds;
      m.seconds.push_back(solving);
    }
    units = run->work();
    m.agreement = run->check();
    m.wall_s = seconds_since(began);
    rows.push_back({{std::string("cpu"), std::int64_t{threads}}, std::move(m)});
  }
  clock.configurations_end();
  set_cpu_threads(threads_in_force);
  SweepTable table(c, units, 0, 0);
  for (std::size_t i = 0; i < rows.size(); ++i) table.add(rows[i].first, rows[i].second, i);
  table.print_and_write(out);
  out.set_attribute("/sweep", "backend", std::string("cpu"));
  write_overhead(out, table.timed_s(), clock);
  out.commit();
  say("wrote " + path.string());
  if (!autotune_file.empty()) {
    std::optional<io::AutotuneChoice> choice;
    if (table.fastest())
      choice = choice_of(cpu_autotune_key(binding.name, params, options.params_path), "cpu",
                         {{"threads", std::to_string(counts[*table.fastest()])}});
    if (store_fastest(choice, table, rows.size(), path, autotune_file, "thread count",
                      "; parasol run --threads auto uses it") != 0)
      return 1;
  }
  return table.all_passed() ? 0 : 1;
}

std::string no_autotune(const Binding& binding) {
  return "--autotune stores the fastest of a solver's variants and axes; the " +
         std::string(binding.name) + " sweep has nothing to choose between";
}

// Each configuration measured in turn into `table` (one the study skips is said and left out),
// with the kernels it launched and its wall time, between `clock`'s marks. Across ranks every
// rank measures together, and a failure while they meet ends them all (or_abort); on one rank
// the failure goes up as any other.
void measure_every(comm::Context& context, Study& study,
                   const std::vector<std::vector<Cell>>& configurations, SweepTable& table,
                   SweepClock& clock) {
  clock.configurations_begin();
  for (std::size_t i = 0; i < configurations.size(); ++i) {
    // Each kernel's attributes are asked for once, at its first launch; later launches (the
    // timed repeats') only add to its count.
    Measurement m;
    KernelLog log;
    const auto began = std::chrono::steady_clock::now();
    or_abort(context, [&] { m = study.measure(i); });
    m.wall_s = seconds_since(began);
    m.kernels = log.take();
    if (!m.skipped.empty()) {
      say(m.skipped);
      continue;
    }
    if (!m.failure.empty()) say(m.failure);
    table.add(configurations[i], m, i);
  }
  clock.configurations_end();
}

// A sweep on the device: every configuration measured, rank 0 printing and writing. Across ranks
// (laplace3d) every rank measures every configuration together: a failure before the timing ends
// every rank with one line from rank 0; one during it (the ranks are meeting) ends the whole run,
// and nothing is left behind.
int gpu_sweep(comm::Context& context, const SweepOptions& options, io::ParamTable& params,
              const Binding& binding, Study& study, std::chrono::steady_clock::time_point started,
              const std::vector<std::string>& overrides) {
  const bool across = context.size() > 1;
  std::filesystem::path ncu, autotune_file;
  together(context, [&] {
    if (options.profile) ncu = ncu_or_refuse();
    autotune_file = autotune_file_of(options);
    std::string reason;
    if (across && agreed_backend(context, Backend::gpu) != Backend::gpu)
      throw Error("parasol sweep needs a device on every rank");
    if (!across && !gpu_available(&reason))
      throw Error("parasol sweep times GPU kernels and needs a device: " + reason +
                  " (--backend cpu sweeps the CPU solver)");
    if (across) study.use_ranks(context, options.transport);
    study.prepare();
  });
  const std::filesystem::path path = output_path(options.output, options.params_path, "-sweep");
  std::optional<io::ResultFile> out;
  together(context, [&] {
    if (!context.is_root()) return;
    out.emplace(path, options.force, options.compression);
    write_parameters(*out, params);
    write_provenance(*out, binding.name, Backend::gpu, options.command_line);
  });
  if (across) {
    const std::vector<comm::RankDevice> devices = context.devices();
    if (out) write_ranks(*out, context, Backend::gpu, devices);
  }
  if (is_speaker())
    std::cout << binding.name << " sweep"
              << (across ? " on " + std::to_string(context.size()) + " ranks" : std::string())
              << ": " << study.describe() << "\n";

  SweepTable table(study.columns(), study.units_per_run(), study.roofline_per_run(),
                   study.ceiling_per_second(), true, context.size());
  const std::vector<std::vector<Cell>> configurations = study.configurations();
  SweepClock clock{started};
  measure_every(context, study, configurations, table, clock);
  together(context, [&] {
    if (table.empty()) throw study.nothing_to_time();
    if (!out) return;
    table.print_and_write(*out);
    study.write_attributes(*out);
    write_overhead(*out, table.timed_s(), clock);
    if (!ncu.empty()) profile_extremes(*out, ncu, study, table, options, overrides);
    out->commit();
  });
  say("wrote " + path.string());

  if (!autotune_file.empty()) {
    std::optional<io::AutotuneChoice> choice;
    if (table.fastest()) choice = study.autotune_choice(*table.fastest());
    if (store_fastest(choice, table, configurations.size(), path, autotune_file,
                      "configuration") != 0)
      return 1;
  }
  return table.all_passed() ? 0 : 1;
}

}  // namespace

int sweep_command(comm::Context& context, const SweepOptions& asked,
                  const std::vector<std::string>& overrides) {
  SweepOptions options = asked;
  const auto started = std::chrono::steady_clock::now();
  try {
    std::optional<io::ParamTable> params;
    const Binding* binding = nullptr;
    std::unique_ptr<Study> study;
    together(context, [&] {
      params.emplace(load_params(options.params_path, overrides));
      binding = &find_binding(*params);
      study = binding->make_study(*params, options.params_path);
      if (context.size() == 1) return;
      const auto refuse = [&](const std::string& why) {
        throw InputError("command line", "mpirun", why + "; run it without a launcher");
      };
      if (!study->sweeps_across_ranks())
        refuse("parasol sweep of " + std::string(binding->name) + " times one device at a time");
      if (options.backend == Backend::cpu)
        refuse("parasol sweep --backend cpu times the CPU solver in one process");
      if (options.autotune) refuse("--autotune stores the choice for one device");
      if (options.profile) refuse("--profile runs one process under Nsight Compute");
    });
    if (context.size() > 1) {
      together(context, [&] { require_same_problem(context, *params, options.params_path); });
      return gpu_sweep(context, options, *params, *binding, *study, started, overrides);
    }
    options.backend = resolve_sweep_backend(options);  // once the file is known good
    // A CPU sweep's --autotune stores the fastest thread count, which every solver has.
    if (options.autotune && options.backend != Backend::cpu && !study->can_autotune())
      throw InputError(params->source_of("solver"), "solver", no_autotune(*binding));
    if (options.backend == Backend::cpu && options.profile)
      throw InputError("command line", "--profile", "profiles GPU kernels; not with --backend cpu");
    if (options.backend == Backend::cpu)
      return cpu_sweep(context, options, *params, *binding, *study, started);
    return gpu_sweep(context, options, *params, *binding, *study, started, overrides);
  } catch (const Stop& stop) {
    return stop.status;
  }
}

}  // namespace parasol::app
