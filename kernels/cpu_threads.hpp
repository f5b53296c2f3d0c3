// How many threads the CPU solvers (the gold solvers, the CPU backend) use. `--threads auto`, the
// default, shares the cores this process may run on (its affinity mask, and a container's CPU
// quota) among the ranks on its host and gives a small problem fewer threads (auto_threads);
// `--threads N` sets N, clamped to those cores. The count used is in /provenance@threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

namespace parasol {

// The cores this process may use: its affinity mask, capped by a cgroup CPU quota where one is
// set; at least 1.
int available_cores();

// The least work a thread gets under --threads auto: items of about a nanosecond each (a grid
// point of one laplace3d sweep, a path step). Every parallel loop wakes the threads, and on a busy
// machine a woken thread may wait for a core, so a thread's share must outweigh that. laplace3d
// (one parallel loop a sweep) on this 2-core machine at load ~14, OMP_WAIT_POLICY=passive, 1 vs 2
// threads: 16^3 0.7 ms vs 24 ms, 32^3 41 vs 41 ms, 48^3 145 vs 164 ms, 64^3 479 vs 516 ms. 2^16
// points a thread keeps 32^3 and smaller on one thread and lets 64^3 have two, which an idle
// machine turns into nearly twice the speed.
inline constexpr std::int64_t kMinItemsPerThread = std::int64_t(1) << 16;

// --threads auto's rule: `cores` shared among the `local_ranks` on this host (each rank of an
// mpirun would otherwise take them all), and no more threads than `items` has kMinItemsPerThread
// for (items 0: not known, no cap). At least 1.
int auto_threads(int cores, int local_ranks, std::int64_t items);

// What --threads says: "auto", or a count >= 1.
struct ThreadsOption {
  bool automatic = true;
  int count = 0;  // when not automatic
};
// Throws InputError saying what --threads takes.
ThreadsOption parse_threads(std::string_view text);

// Sets the CPU solvers' threads from --threads, for one of `local_ranks` ranks on this host: auto
// gives auto_threads(available_cores(), local_ranks, 0) until fit_cpu_threads() knows the
// problem; a count above available_cores() is clamped to it, and the line returned says so
// (empty otherwise).
std::string apply_threads_option(const ThreadsOption& option, int local_ranks);

// Under --threads auto, fewer threads for a problem of `items` (Run::parallel_items(); 0: not
// known, nothing changes). Nothing after --threads N.
void fit_cpu_threads(std::int64_t items);

// Under a launcher that bound this rank to fewer cores than its share of the host (Open MPI binds
// each of one or two ranks to a single core by default), the line that says so and how to give
// it its share; empty otherwise. `host_cores` is the machine's (or its quota's) count.
std::string bound_below_share(int cores, int host_cores, int local_ranks);
int host_cores();

// Under --threads auto, `threads`: the thread count `parasol sweep --backend cpu --autotune`
// measured fastest for this problem, stored in `from` (for the summary); no more than
// auto_threads() gives the host's ranks without a problem size. Nothing after --threads N.
void use_stored_cpu_threads(int threads, const std::string& from);

// Whether --threads said auto (the default).
bool cpu_threads_automatic();

// The processor's model name ("AMD EPYC 7B13"), from /proc/cpuinfo; "CPU" where it does not say.
std::string cpu_model_name();

// "2 CPU threads (auto: 2 cores, 1 rank on this host)", for a CPU run's summary.
std::string describe_cpu_threads();

// Sets the CPU solvers' thread count (n >= 1) as it is, for a sweep over thread counts.
void set_cpu_threads(int n);
int cpu_threads();

// With neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT set, whether to run the program again with
// OMP_WAIT_POLICY=passive. OpenMP reads them once, as its library is initialised, before main();
// by default its idle threads spin for milliseconds after each parallel loop, and on a loaded
// machine they take the cores the working threads need: laplace3d 64^3 on 2 threads took 29 s
// spinning against 0.56 s passive (at load ~14). `args` are the command's words after the
// program's name: only `run` and `sweep` use the CPU solvers, and `--threads 1` never waits.
// `envp` is the environment as main() would get it (null-terminated).
bool wants_passive_openmp(int argc, const char* const* argv, const char* const* envp);

// For the program's .preinit_array: before any library's initialisers (OpenMP's among them) and
// with nothing started yet, executes /proc/self/exe again with OMP_WAIT_POLICY=passive added where
// wants_passive_openmp() says so. Where that fails, goes on as it is.
void exec_with_passive_openmp(int argc, char** argv, char** envp);

// body(first, last) over [0, count) in chunks of `chunk` items, the chunks shared among the CPU
// solvers' threads as they come free, and after each chunk done(finished), one thread at a time,
// with the number of items finished so far (increasing): where a long loop tells its progress.
// Neither may throw. Runs on one thread where the including file is compiled without OpenMP.
template <class Body, class Done>
void for_chunks(std::int64_t count, std::int64_t chunk, const Body& body, const Done& done) {
  chunk = std::max<std::int64_t>(chunk, 1);
  const std::int64_t chunks = (count + chunk - 1) / chunk;
  std::int64_t finished = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t first = c * chunk, last = std::min(count, first + chunk);
    body(first, last);
#ifdef _OPENMP
#pragma omp critical(parasol_for_chunks)
#endif
    {
      finished += last - first;
      done(finished);
    }
  }
}

}  // namespace parasol
