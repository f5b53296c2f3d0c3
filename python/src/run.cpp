// parasol.info(), solvers(), keys() and run(): the command line's `info`, `solvers`, `keys` and
// `run`, their answers as Python values. run() goes through the command line's own driver
// (apps/driver.hpp), so parameters are read, checked and reported by the same code.
#include <hdf5.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "apps/binding.hpp"
#include "apps/driver.hpp"
#include "apps/keys.hpp"
#include "apps/progress.hpp"
#include "arrays.hpp"
#include "comm/context.hpp"
#include "io/result_reader.hpp"
#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "parasol/version.hpp"

namespace parasol::python {
namespace {

nb::dict info() {
  nb::dict out;
  out["version"] = std::string(kVersion);
  out["git_describe"] = std::string(kGitDescribe);
  out["cpu_cores"] = available_cores();
  std::string reason;
  const bool gpu = gpu_available(&reason);
  out["gpu"] = gpu;
  if (!gpu) {
    out["reason"] = reason;
    return out;
  }
  const DeviceInfo d = current_device();
  nb::dict device;
  device["ordinal"] = d.ordinal;
  device["name"] = d.name;
  device["compute_capability"] = d.compute_capability();
  device["multiprocessors"] = d.multiprocessors;
  device["total_memory"] = d.total_memory;
  device["free_memory"] = d.free_memory;
  device["l2_bytes"] = d.l2_bytes;
  device["runtime"] = cuda_version_string(d.runtime_version);
  device["driver"] = cuda_version_string(d.driver_version);
  out["device"] = device;
  return out;
}

nb::dict solvers() {
  nb::dict out;
  for (const app::Binding& b : app::bindings()) {
    nb::dict solver;
    solver["summary"] = std::string(b.summary);
    nb::list examples;
    for (std::string_view e : b.examples) examples.append(std::string(e));
    solver["examples"] = examples;
    solver["declares_keys"] = b.keys != nullptr;
    out[std::string(b.name).c_str()] = solver;
  }
  return out;
}

nb::list keys(const std::string& solver) {
  const app::Binding& binding = app::binding_named(solver);
  if (binding.keys == nullptr)
    throw InputError("", "solver", std::string(binding.name) + " does not declare its keys yet");
  nb::list out;
  for (const KeyInfo& k : binding.keys()) {
    nb::dict key;
    key["key"] = k.key;
    key["type"] = std::string(name(k.type));
    key["values"] = k.values;
    key["default"] = k.required() ? nb::none() : nb::cast(k.fallback);
    key["unit"] = k.unit;
    key["help"] = k.help;
    key["read_when"] = k.read_when;
    key["gpu_only"] = k.gpu_only;
    key["sweep"] = k.sweep;
    key["auto"] = k.automatic;
    out.append(key);
  }
  return out;
}

// A folder of its own under the system's temporary folder, removed with everything in it (the
// result and its sidecars) when this goes.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "parasol-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw Error("cannot make a temporary folder " + pattern + ": " +
                  std::error_code(errno, std::generic_category()).message());
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One object of a result file: a group, or a dataset and what its values are.
struct Entry {
  std::string path;  // "/u", "/diagnostics"
  bool dataset = false;
  H5T_class_t type = H5T_NO_CLASS;
  std::size_t bytes = 0;  // of one element
};

// Every group and dataset of the file, in name order, the root first.
std::vector<Entry> entries(const std::filesystem::path& file) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw Error("H5Fopen(" + file.string() + "): cannot open the result");
  std::vector<Entry> found{{"/", false, H5T_NO_CLASS, 0}};
  const auto visit = [](hid_t root, const char* name, const H5L_info_t* info, void* data) -> herr_t {
    if (info->type != H5L_TYPE_HARD) return 0;
    auto& out = *static_cast<std::vector<Entry>*>(data);
    const hid_t object = H5Oopen(root, name, H5P_DEFAULT);
    if (object < 0) return -1;
    Entry e{"/" + std::string(name), H5Iget_type(object) == H5I_DATASET, H5T_NO_CLASS, 0};
    if (e.dataset) {
      const hid_t type = H5Dget_type(object);
      e.type = H5Tget_class(type);
      e.bytes = H5Tget_size(type);
      H5Tclose(type);
    }
    H5Oclose(object);
    out.push_back(std::move(e));
    return 0;
  };
  const herr_t visited = H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, visit, &found);
  H5Fclose(f);
  if (visited < 0) throw Error("H5Lvisit(" + file.string() + "): cannot list the result");
  return found;
}

// What a result holds, read whole before any Python object is made (so the reading can run
// without the interpreter's lock).
struct ReadResult {
  struct Field {
    std::string key;
    std::vector<std::size_t> shape;
    std::variant<std::vector<float>, std::vector<double>, std::vector<std::int64_t>,
                 std::vector<std::string>>
        values;
  };
  std::vector<Field> fields;
  std::vector<std::pair<std::string, io::AttributeValue>> attributes;
};

ReadResult read_result(const std::filesystem::path& file) {
  ReadResult out;
  const std::vector<Entry> all = entries(file);
  const io::ResultReader reader(file);
  for (const Entry& e : all) {
    for (const std::string& name : reader.attribute_names(e.path))
      out.attributes.emplace_back(e.path + "@" + name, reader.attribute(e.path, name));
    if (!e.dataset) continue;
    ReadResult::Field field;
    field.key = e.path;
    for (std::uint64_t d : reader.dims(e.path)) field.shape.push_back(static_cast<std::size_t>(d));
    if (e.type == H5T_FLOAT && e.bytes == 4) field.values = reader.read_floats(e.path);
    else if (e.type == H5T_FLOAT) field.values = reader.read_doubles(e.path);
    else if (e.type == H5T_INTEGER) field.values = reader.read_ints(e.path);
    else if (e.type == H5T_STRING) field.values = reader.read_strings(e.path);
    else continue;  // no dataset of another class is written; one would have no NumPy form here
    out.fields.push_back(std::move(field));
  }
  return out;
}

nb::object to_python(const io::AttributeValue& value) {
  return std::visit(
      [](const auto& v) -> nb::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::vector<std::int64_t>> ||
                      std::is_same_v<T, std::vector<double>>)
          return to_numpy(v, {v.size()});
        else
          return nb::cast(v);
      },
      value);
}

nb::dict to_python(ReadResult&& result) {
  nb::dict out;
  for (ReadResult::Field& f : result.fields) {
    std::visit(
        [&](auto& v) {
          using T = typename std::decay_t<decltype(v)>::value_type;
          if constexpr (std::is_same_v<T, std::string>) {
            out[f.key.c_str()] = nb::cast(v);
          } else {
            out[f.key.c_str()] = to_numpy(std::move(v), f.shape);
          }
        },
        f.values);
  }
  for (const auto& [key, value] : result.attributes) out[key.c_str()] = to_python(value);
  return out;
}

// A run's settings of the process, restored after it: who speaks, progress, and the CPU threads
// by the command line's --threads rule (0: auto, fitted to the problem by the driver).
class QuietRun {
 public:
  QuietRun(bool verbose, int threads) {
    app::set_speaker(verbose);
    app::configure_progress(app::kDefaultProgressInterval, !verbose);
    ThreadsOption option;
    option.automatic = threads == 0;
    option.count = threads;
    apply_threads_option(option, 1);
  }
  ~QuietRun() {
    app::set_speaker(true);
    app::configure_progress(app::kDefaultProgressInterval, false);
    apply_threads_option(ThreadsOption{}, 1);
  }
  QuietRun(const QuietRun&) = delete;
  QuietRun& operator=(const QuietRun&) = delete;
};

nb::dict run(const std::string& params, const std::vector<std::string>& overrides,
             const std::string& backend, bool check, int threads, bool verbose,
             const std::string& call) {
  app::RunOptions options;
  options.params_path = params;
  options.check = check;
  // Resolved here, so that "auto" on a machine without a GPU runs the CPU gold without the
  // command line's line on stderr: the result's /provenance says which ran.
  options.backend = use_gpu(backend) ? app::Backend::gpu : app::Backend::cpu;
  options.command_line = call;
  TemporaryFolder folder;
  options.output = folder.path() / (options.params_path.stem().string() + ".h5");
  ReadResult result;
  {
    nb::gil_scoped_release unlocked;
    const QuietRun settings(verbose, threads);
    comm::Context context;
    app::run_command(context, options, overrides);
    result = read_result(options.output);
  }
  return to_python(std::move(result));
}

}  // namespace

void bind_run(nb::module_& m) {
  m.def("info", &info,
        "The build (version, git describe), the CPU cores the CPU solvers use, and the GPU: "
        "its properties, or why there is none.");
  m.def("solvers", &solvers,
        "Every solver of this build: {name: {summary, examples, declares_keys}}.");
  m.def("keys", &keys, nb::arg("solver"),
        "Every key a solver's parameter file may hold, as declared beside the solver: a list of "
        "{key, type, values, default, unit, help, read_when, gpu_only, sweep, auto}.");
  m.def("_run", &run, nb::arg("params"), nb::arg("overrides"), nb::arg("backend"),
        nb::arg("check"), nb::arg("threads"), nb::arg("verbose"), nb::arg("call"));
}

}  // namespace parasol::python
