// NVTX ranges, so an Nsight Systems timeline (nsys profile -t cuda,nvtx) shows a run's phases and
// each solver's launches by name. Built with -DPARASOL_NVTX=ON only: otherwise NvtxRange is an
// empty object and PARASOL_NVTX_RANGE expands to nothing, so the ranges cost nothing.
#pragma once

#if defined(PARASOL_NVTX)
#include <nvtx3/nvToolsExt.h>
#endif

#include <utility>

namespace parasol {

// A range from its making to its end (or end()). Start/end rather than push/pop: a phase's range
// may end out of nesting order (PhaseTimer scopes are moved and stopped early).
class NvtxRange {
 public:
#if defined(PARASOL_NVTX)
  explicit NvtxRange(const char* name) : id_(nvtxRangeStartA(name)), open_(true) {}
  NvtxRange(NvtxRange&& other) noexcept
      : id_(other.id_), open_(std::exchange(other.open_, false)) {}
  ~NvtxRange() { end(); }
  void end() {
    if (std::exchange(open_, false)) nvtxRangeEnd(id_);
  }
#else
  explicit NvtxRange(const char*) {}
  NvtxRange(NvtxRange&&) noexcept = default;
  void end() {}
#endif
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
  NvtxRange& operator=(NvtxRange&&) = delete;

 private:
#if defined(PARASOL_NVTX)
  nvtxRangeId_t id_;
  bool open_;
#endif
};

}  // namespace parasol

// A range named `name` (a string literal) over the rest of the enclosing scope.
#if defined(PARASOL_NVTX)
#define PARASOL_NVTX_CONCAT2(a, b) a##b
#define PARASOL_NVTX_CONCAT(a, b) PARASOL_NVTX_CONCAT2(a, b)
#define PARASOL_NVTX_RANGE(name) \
  const ::parasol::NvtxRange PARASOL_NVTX_CONCAT(parasol_nvtx_range_, __LINE__)(name)
#else
#define PARASOL_NVTX_RANGE(name)
#endif
