#include "kernels/cpu_threads.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

#include "kernels/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace parasol {

namespace {

// cgroup v2's "cpu.max": "max 100000" (no quota) or "200000 100000" (two cores' worth).
int quota_cores() {
  std::ifstream in("/sys/fs/cgroup/cpu.max");
  std::string quota, period;
  if (!(in >> quota >> period) || quota == "max") return 0;
  try {
    const double q = std::stod(quota), p = std::stod(period);
    return p > 0 ? std::max(1, static_cast<int>(std::ceil(q / p))) : 0;
  } catch (...) {
    return 0;
  }
}

// What apply_threads_option() was given and found, for fit_cpu_threads() and the summary. Set
// once, on main's thread, before any solver runs.
struct Choice {
  ThreadsOption option;
  int cores = 1;
  int local_ranks = 1;
  std::int64_t items = 0;  // fit_cpu_threads()'s, 0 before it
  std::string stored_from;  // use_stored_cpu_threads()'s file, empty when none was used
};
Choice g_choice;

std::string plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

bool starts_with(const char* text, const char* prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

}  // namespace

int available_cores() {
  int cores = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) cores = CPU_COUNT(&set);
  if (cores < 1) cores = 1;
  const int quota = quota_cores();
  return quota > 0 ? std::min(cores, quota) : cores;
}

int host_cores() {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int cores = online > 0 ? static_cast<int>(online) : 1;
  const int quota = quota_cores();
  return quota > 0 ? std::min(cores, quota) : cores;
}

std::string bound_below_share(int cores, int host, int local_ranks) {
  const int share = std::max(1, host / std::max(1, local_ranks));
  if (local_ranks < 1 || cores >= share) return {};
  return "each rank may use " + std::to_string(cores) + " core" + (cores == 1 ? "" : "s") +
         " of this host's " + std::to_string(host) + " (the launcher bound it), so its host work "
         "runs on " + std::to_string(cores) + " thread" + (cores == 1 ? "" : "s") +
         "; `mpirun --bind-to none` or `--map-by slot:PE=" + std::to_string(share) +
         "` gives each of the " + std::to_string(local_ranks) + " ranks its share";
}

int auto_threads(int cores, int local_ranks, std::int64_t items) {
  int threads = std::max(1, cores / std::max(1, local_ranks));
  if (items > 0)
    threads = static_cast<int>(
        std::min<std::int64_t>(threads, std::max<std::int64_t>(1, items / kMinItemsPerThread)));
  return threads;
}

ThreadsOption parse_threads(std::string_view text) {
  if (text == "auto") return {};
  int count = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      count = 0;
      break;
    }
    count = std::min(count * 10 + (c - '0'), 1'000'000);  // clamped to the cores later anyway
  }
  if (text.empty() || count < 1)
    throw InputError("command line", "--threads",
                     "expected auto or a whole number of threads >= 1, got \"" +
                         std::string(text) + "\"");
  return {false, count};
}

std::string apply_threads_option(const ThreadsOption& option, int local_ranks) {
  g_choice = Choice{option, available_cores(), std::max(1, local_ranks), 0, {}};
  std::string note;
  int threads = auto_threads(g_choice.cores, g_choice.local_ranks, 0);
  if (!option.automatic) {
    threads = std::min(option.count, g_choice.cores);
    if (option.count > g_choice.cores)
      note = "--threads " + std::to_string(option.count) + ": this process may use " +
             plural(g_choice.cores, "core") + "; using " + std::to_string(threads);
  }
  set_cpu_threads(threads);
  return note;
}

void fit_cpu_threads(std::int64_t items) {
  if (!g_choice.option.automatic || items <= 0) return;
  g_choice.items = items;
  set_cpu_threads(auto_threads(g_choice.cores, g_choice.local_ranks, items));
}

void use_stored_cpu_threads(int threads, const std::string& from) {
  if (!g_choice.option.automatic || threads < 1) return;
  g_choice.stored_from = from;
  set_cpu_threads(std::min(threads, auto_threads(g_choice.cores, g_choice.local_ranks, 0)));
}

bool cpu_threads_automatic() { return g_choice.option.automatic; }

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const std::size_t first = line.find_first_not_of(" \t", colon + 1);
    if (first != std::string::npos) return line.substr(first);
  }
  return "CPU";
}

std::string describe_cpu_threads() {
  const int threads = cpu_threads();
  std::string text = plural(threads, "CPU thread") + " (";
  if (!g_choice.option.automatic) {
    text += "--threads " + std::to_string(g_choice.option.count);
    if (g_choice.option.count > g_choice.cores)
      text += ", clamped to the " + plural(g_choice.cores, "core") + " this process may use";
    return text + ")";
  }
  if (!g_choice.stored_from.empty())
    return text + "auto: the fastest of parasol sweep --backend cpu --autotune, from " +
           g_choice.stored_from + ")";
  text += "auto: " + plural(g_choice.cores, "core") + ", " +
          plural(g_choice.local_ranks, "rank") + " on this host";
  if (g_choice.items > 0 &&
      threads < auto_threads(g_choice.cores, g_choice.local_ranks, 0))
    text += ", at least " + std::to_string(kMinItemsPerThread) + " items a thread";
  return text + ")";
}

void set_cpu_threads(int n) {
#ifdef _OPENMP
  // A fixed team: the runtime may not shrink it behind the count stored in /provenance.
  omp_set_dynamic(0);
  omp_set_num_threads(std::max(1, n));
#else
  (void)n;
#endif
}

int cpu_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

bool wants_passive_openmp(int argc, const char* const* argv, const char* const* envp) {
  for (const char* const* e = envp; e != nullptr && *e != nullptr; ++e)
    if (starts_with(*e, "OMP_WAIT_POLICY=") || starts_with(*e, "GOMP_SPINCOUNT=")) return false;
  bool solves = false;
  for (int i = 0; i < argc; ++i) {
    const char* word = argv[i];
    if (std::strcmp(word, "run") == 0 || std::strcmp(word, "sweep") == 0) solves = true;
    const bool one_thread = std::strcmp(word, "--threads=1") == 0 ||
                            (std::strcmp(word, "--threads") == 0 && i + 1 < argc &&
                             std::strcmp(argv[i + 1], "1") == 0);
    if (one_thread) return false;
  }
  return solves;
}

void exec_with_passive_openmp(int argc, char** argv, char** envp) {
  if (argc < 1 || !wants_passive_openmp(argc - 1, argv + 1, envp)) return;
  // Nothing is initialised yet, the C library included: no allocation, fixed room.
  static char passive[] = "OMP_WAIT_POLICY=passive";
  static char* environment[4096];
  std::size_t n = 0;
  for (char** e = envp; *e != nullptr; ++e) {
    if (n + 2 >= sizeof environment / sizeof environment[0]) return;
    environment[n++] = *e;
  }
  environment[n++] = passive;
  environment[n] = nullptr;
  execve("/proc/self/exe", argv, environment);  // returns only when it failed: go on spinning
}

}  // namespace parasol
