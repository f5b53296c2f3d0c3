// What `parasol run` (run.cpp) and `parasol sweep` (sweep.cpp) share: the registry's look-up, the
// autotune choice of method.variant = "auto", /method's common attributes, the sweep's repeats,
// and the ranks' agreement on a backend.
#include "apps/driver.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <system_error>
#include <variant>

#include "apps/binding.hpp"
#include "apps/keys.hpp"
#include "apps/ranks.hpp"
#include "apps/progress.hpp"
#include "comm/context.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/timed_runs.hpp"

namespace parasol::app {

void say(const std::string& text) {
  if (is_speaker()) std::cout << "  " << text << "\n";
}

const Binding& find_binding(io::ParamTable& params) {
  const std::string solver = params.get_string("solver");
  try {
    return binding_named(solver);
  } catch (const InputError& e) {
    throw InputError(params.source_of("solver"), "solver", e.expected());  // said at its line
  }
}

std::vector<std::string> Study::run_overrides(std::size_t configuration) const {
  const std::optional<io::AutotuneChoice> c = autotune_choice(configuration);
  if (!c) return {};
  std::vector<std::string> overrides{"method.variant=" + c->variant};
  for (const auto& [axis, value] : c->axes) {
    if (value == "-") continue;
    // A block shape as the file writes one; numbers and names as they are.
    const std::optional<Shape> shape = shape_from_string(value);
    overrides.push_back("method." + axis + "=" +
                        (shape && value.find('x') != std::string::npos
                             ? "[" + std::to_string(shape->x) + "," + std::to_string(shape->y) +
                                   "," + std::to_string(shape->z) + "]"
                             : value));
  }
  return overrides;
}

std::string AutoChoice::described() const {
  if (!choice) return " (auto: no choice stored)";
  return (shipped ? " (auto, shipped: " : " (auto, from ") + file.string() + ")";
}

InputError AutoChoice::unusable(const InputError& e, const std::string& axis) const {
  return InputError(file.string() + ":" + std::to_string(choice ? choice->line : 0),
                    "choice." + axis,
                    e.expected() + " in this build; run `parasol sweep --autotune` again");
}

std::string describe_repeats(const Repeats& repeats, const std::string& runs) {
  std::string text = std::to_string(repeats.at_least) + " timed " + runs;
  if (repeats.min_seconds > 0)
    text = "at least " + text + " and " + short_number(repeats.min_seconds) + " s";
  return text + " each";
}

io::AutotuneKey autotune_key(std::string_view solver, std::string problem, std::string precision) {
  const DeviceInfo device = current_device();
  return {device.name, device.compute_capability(), std::string(solver), std::move(problem),
          std::move(precision)};
}

AutoChoice look_up_choice(const std::filesystem::path& given, const io::AutotuneKey& key,
                          const std::string& fallback) {
  AutoChoice a;
  a.file = io::autotune_path(given);
  a.choice = io::AutotuneFile::load(a.file).find(key);
  if (const std::filesystem::path shipped = io::shipped_autotune_path();
      !a.choice && !shipped.empty()) {
    if (std::optional<io::AutotuneChoice> c = io::AutotuneFile::load(shipped).find(key)) {
      a.file = shipped;
      a.choice = std::move(c);
      a.shipped = true;
    }
  }
  if (!a.choice)
    std::cerr << "parasol: method.variant = \"auto\": no choice for " << io::describe(key)
              << " in " << a.file.string() << "; running " << fallback
              << " (`parasol sweep --autotune` on this problem stores one)\n";
  return a;
}

io::ParamTable load_params(const std::filesystem::path& file,
                           const std::vector<std::string>& overrides) {
  io::ParamTable params = io::ParamTable::load(file);
  for (const std::string& assignment : overrides) params.apply_override(assignment);
  return params;
}

namespace {

// A value as a parameter file would say it, exactly (doubles to 17 digits).
struct ValueText {
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(std::int64_t i) const { return std::to_string(i); }
  std::string operator()(double d) const {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", d);
    return text;
  }
  std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
  template <class T>
  std::string operator()(const std::vector<T>& values) const {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + (*this)(values[i]);
    return text + "]";
  }
};

std::string value_text(const io::Value& v) { return std::visit(ValueText{}, v); }

std::uint64_t fnv1a(const char* data, std::size_t size, std::uint64_t hash = 14695981039346656037ull) {
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

// " (file of N bytes, hash H)" for an input file a key names, or " (no such file)". The name is
// taken as io::get_file takes it; "file.h5:/dataset" names the file before the colon.
std::string file_identity(const io::ParamTable& params, const std::string& key,
                          const std::string& name, const std::filesystem::path& params_path) {
  std::filesystem::path path = name;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && name.find(':') != std::string::npos)
    path = name.substr(0, name.find(':'));
  if (path.is_relative() && params.source_of(key) != "command line")
    path = params_path.parent_path() / path;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return " (no such file)";
  // The first and last 64 KiB: cheap for any size, and what differs between two versions of an
  // input (a header, a count, the data's end) is almost always there.
  constexpr std::uintmax_t kEnd = 64 * 1024;
  std::ifstream in(path, std::ios::binary);
  std::string head(static_cast<std::size_t>(std::min(size, kEnd)), '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  std::string tail;
  if (size > kEnd) {
    tail.assign(static_cast<std::size_t>(std::min(size - kEnd, kEnd)), '\0');
    in.seekg(static_cast<std::streamoff>(size - tail.size()));
    in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  }
  const std::uint64_t hash = fnv1a(tail.data(), tail.size(), fnv1a(head.data(), head.size()));
  char text[64];
  std::snprintf(text, sizeof text, " (file of %ju bytes, hash %016llx)", size,
                static_cast<unsigned long long>(hash));
  return text;
}

// key -> what this rank read for it, input files' identities included.
std::map<std::string, std::string> problem_of(const io::ParamTable& params,
                                              const std::filesystem::path& params_path) {
  std::map<std::string, std::string> problem;
  for (const auto& [key, value] : params.resolved()) {
    std::string text = value_text(value);
    const std::string last = key.substr(key.find_last_of('.') + 1);
    const bool names_file = last.size() >= 4 && last.compare(last.size() - 4, 4, "file") == 0;
    if (names_file && std::holds_alternative<std::string>(value) &&
        !std::get<std::string>(value).empty())
      text += file_identity(params, key, std::get<std::string>(value), params_path);
    problem.emplace(key, std::move(text));
  }
  return problem;
}

std::string problem_text(const std::map<std::string, std::string>& problem) {
  std::string text;
  for (const auto& [key, value] : problem) text += key + " = " + value + "\n";
  return text;
}

// A rank's GPU as all_gather carries it: plain bytes.
struct GpuPresence {
  std::int32_t usable = 0;
  std::array<char, 64> host{};
  std::array<char, 192> reason{};
};

template <std::size_t N>
void copy_text(std::array<char, N>& to, const std::string& from) {
  const std::size_t n = std::min(from.size(), N - 1);
  std::copy_n(from.begin(), n, to.begin());
  to[n] = '\0';
}

}  // namespace

void require_same_problem(comm::Context& context, const io::ParamTable& params,
                          const std::filesystem::path& params_path) {
  if (context.size() == 1) return;
  const std::map<std::string, std::string> mine = problem_of(params, params_path);
  std::string text = problem_text(mine);
  const std::vector<std::uint64_t> digests =
      context.all_gather(fnv1a(text.data(), text.size()));
  if (std::all_of(digests.begin(), digests.end(), [&](auto d) { return d == digests[0]; })) return;
  // Rare: rank 0's problem goes to every rank, and each that differs names its first key.
  context.broadcast(text);
  if (digests[static_cast<std::size_t>(context.rank())] == digests[0]) return;
  std::map<std::string, std::string> root;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto eq = line.find(" = ");
    root.emplace(line.substr(0, eq), line.substr(eq + 3));
  }
  const std::string rank = "rank " + std::to_string(context.rank());
  auto a = root.begin();
  auto b = mine.begin();
  std::string key, differs;
  for (; a != root.end() || b != mine.end();) {
    if (b == mine.end() || (a != root.end() && a->first < b->first)) {
      key = a->first;
      differs = "is " + a->second + " on rank 0 and not given on " + rank;
      break;
    }
    if (a == root.end() || b->first < a->first) {
      key = b->first;
      differs = "is not given on rank 0 and is " + b->second + " on " + rank;
      break;
    }
    if (a->second != b->second) {
      key = a->first;
      differs = "is " + a->second + " on rank 0 and " + b->second + " on " + rank;
      break;
    }
    ++a;
    ++b;
  }
  throw InputError("mpirun", key,
                   differs + "; every rank must solve the same problem (same parameter file "
                             "contents, overrides and input files)");
}

io::AutotuneKey cpu_autotune_key(std::string_view solver, const io::ParamTable& params,
                                 const std::filesystem::path& params_path) {
  // The problem is every key the run reads, input files' identities included, but the sweep's
  // own keys and where the output goes: a sweep and a run of one file give the same digest.
  std::map<std::string, std::string> problem = problem_of(params, params_path);
  for (auto it = problem.begin(); it != problem.end();)
    it = it->first.rfind("sweep.", 0) == 0 || it->first.rfind("output.", 0) == 0
             ? problem.erase(it)
             : std::next(it);
  const std::string text = problem_text(problem);
  char digest[40];
  std::snprintf(digest, sizeof digest, "parameters %016llx",
                static_cast<unsigned long long>(fnv1a(text.data(), text.size())));
  return {cpu_model_name(), "CPU, " + std::to_string(available_cores()) + " cores",
          std::string(solver), digest, "as the parameters say"};
}

void use_stored_cpu_threads(const std::filesystem::path& given, std::string_view solver,
                            const io::ParamTable& params, const std::filesystem::path& params_path) {
  if (!cpu_threads_automatic()) return;
  std::filesystem::path file;
  try {
    file = io::autotune_path(given);
  } catch (const InputError&) {
    return;  // no place for a store (no $HOME): nothing was stored
  }
  std::error_code ignored;
  if (!std::filesystem::exists(file, ignored)) return;
  const std::optional<io::AutotuneChoice> choice =
      io::AutotuneFile::load(file).find(cpu_autotune_key(solver, params, params_path));
  if (!choice) return;
  const std::string text = choice->axis("threads").value_or("");
  char* end = nullptr;
  const long threads = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || threads < 1 || threads > 100000)
    throw InputError(file.string() + ":" + std::to_string(choice->line), "threads",
                     "expected a whole number of threads >= 1, got \"" + text + "\"");
  parasol::use_stored_cpu_threads(static_cast<int>(threads), file.string());
}

Backend agree_on_backend(Backend asked, const std::vector<RankGpu>& ranks) {
  if (asked == Backend::cpu) return Backend::cpu;
  std::string lacking, why;
  std::size_t without = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].usable) continue;
    lacking += (lacking.empty() ? "" : ", ") + std::to_string(r) + " (" + ranks[r].host + ")";
    if (why.empty()) why = ranks[r].reason;
    ++without;
  }
  if (without == 0) return Backend::gpu;
  if (without < ranks.size()) {
    // Some ranks have a GPU: a CPU run on every rank would be a silent slowdown of a hundred
    // times, and a GPU run cannot be had. The user chooses.
    const std::string message = (without == 1 ? "rank " : "ranks ") + lacking +
                                " cannot use a GPU: " + why + "; the other ranks can";
    if (asked == Backend::gpu) throw Error("--backend gpu: " + message);
    throw InputError("--backend auto: " + message +
                     ". Pass --backend cpu to run the CPU solver on every rank, or give every "
                     "rank a GPU");
  }
  if (asked == Backend::gpu) throw Error("--backend gpu: " + why);
  return Backend::cpu;
}

Backend agreed_backend(comm::Context& context, Backend asked) {
  if (context.size() == 1 || asked == Backend::cpu) return resolve_backend(asked);
  GpuPresence mine;
  std::string reason;
  mine.usable = gpu_available(&reason) ? 1 : 0;
  copy_text(mine.host, context.host());
  copy_text(mine.reason, reason);
  std::vector<RankGpu> ranks;
  for (const GpuPresence& p : context.all_gather(mine))
    ranks.push_back({p.usable == 1, p.host.data(), p.reason.data()});
  const Backend agreed = agree_on_backend(asked, ranks);
  if (agreed == Backend::gpu) {
    context.select_device();
  } else if (context.is_root()) {
    std::cerr << "parasol: no rank can use a GPU (" << ranks.front().reason
              << "); running the CPU gold solver on every rank\n";
  }
  return agreed;
}

void write_ranks(io::ResultFile& file, comm::Context& context, Backend backend,
                 const std::vector<comm::RankDevice>& ranks) {
  file.set_attribute("/provenance", "ranks", std::int64_t{context.size()});
  if (context.size() == 1) return;
  std::string hosts, devices;
  for (const comm::RankDevice& d : ranks) {
    hosts += (hosts.empty() ? "" : ", ") + d.host;
    if (backend == Backend::gpu)
      devices += (devices.empty() ? "" : ", ") + d.host + ":" + std::to_string(d.ordinal) + " " +
                 d.name + " " + d.uuid;
  }
  file.set_attribute("/provenance", "hosts", hosts);
  if (!devices.empty()) file.set_attribute("/provenance", "devices", devices);
}

}  // namespace parasol::app
