#include "apps/provenance.hpp"

#include <unistd.h>

#include <array>
#include <ctime>

#include "kernels/cpu_threads.hpp"
#include "kernels/device.hpp"
#include "parasol/version.hpp"

namespace parasol::app {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

namespace {
std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}
}  // namespace

void write_provenance(io::ResultFile& out, std::string_view solver, Backend backend,
                      const std::string& command_line) {
  out.set_attribute("/", "format", std::string("parasol-result-1"));
  out.set_attribute("/", "solver", std::string(solver));
  const std::string p = "/provenance";
  out.set_attribute(p, "parasol_version", std::string(kVersion));
  out.set_attribute(p, "git_describe", std::string(kGitDescribe));
  out.set_attribute(p, "backend", std::string(name(backend)));
  out.set_attribute(p, "date", utc_now());
  out.set_attribute(p, "host", host_name());
  out.set_attribute(p, "command_line", command_line);
  // The CPU solvers' threads: the CPU backend's, and on a GPU the gold of --check's.
  out.set_attribute(p, "threads", static_cast<std::int64_t>(cpu_threads()));
  if (backend == Backend::gpu) {
    const DeviceInfo device = current_device();
    out.set_attribute(p, "device_name", device.name);
    out.set_attribute(p, "compute_capability", device.compute_capability());
    out.set_attribute(p, "cuda_runtime_version", cuda_version_string(device.runtime_version));
    out.set_attribute(p, "cuda_driver_version", cuda_version_string(device.driver_version));
  } else {
    out.set_attribute(p, "device_name", std::string("cpu"));
  }
}

void write_parameters(io::ResultFile& out, const io::ParamTable& params) {
  for (const auto& [key, value] : params.resolved()) out.set_attribute("/parameters", key, value);
}

}  // namespace parasol::app
