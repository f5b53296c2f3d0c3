#include "apps/options.hpp"

#include <unistd.h>

#include <iostream>

#include "kernels/device.hpp"
#include "kernels/error.hpp"

namespace parasol::app {

std::string_view name(Backend b) {
  switch (b) {
    case Backend::gpu: return "gpu";
    case Backend::cpu: return "cpu";
    case Backend::automatic: return "auto";
  }
  return "?";
}

Backend resolve_backend(Backend asked) {
  if (asked == Backend::cpu) return Backend::cpu;
  std::string reason;
  const bool present = gpu_available(&reason);
  if (present) return Backend::gpu;
  if (asked == Backend::gpu) throw Error("--backend gpu: " + reason);
  std::cerr << "parasol: " << reason << "; running the CPU gold solver instead\n";
  return Backend::cpu;
}

Backend resolve_sweep_backend(const SweepOptions& options) {
  if (options.backend != Backend::automatic) return options.backend;
  if (options.autotune || options.profile) return Backend::gpu;
  std::string reason;
  if (gpu_available(&reason)) return Backend::gpu;
  std::cerr << "parasol: " << reason
            << "; sweeping the CPU solver at 1, 2, 4, ... threads instead (--backend cpu)\n";
  return Backend::cpu;
}

double host_memory_bytes() {
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

std::filesystem::path output_path(const std::filesystem::path& given,
                                  const std::filesystem::path& params_path, std::string_view suffix) {
  if (!given.empty()) return given;
  return params_path.stem().string() + std::string(suffix) + ".h5";
}

}  // namespace parasol::app
