// Large host arrays made fast to fill. The first write to each page of a fresh allocation costs a
// page fault; with 4 KiB pages that is most of the time it takes to make a vector of a few GiB
// (0.63 s a GiB measured on an H100 machine, against 0.19 s with 2 MiB pages: docs/journal/2026-11.md).
// Where the kernel offers transparent huge pages on request (Linux's "madvise" mode, the common
// default), these arrays ask for them before their first touch. Host-only; no CUDA needed.
#pragma once

#include <cstddef>
#include <vector>

namespace parasol {

// Asks that the whole 2 MiB pages inside [data, data + bytes) be backed by huge pages
// (madvise(MADV_HUGEPAGE)). Only a hint: nothing happens for ranges under a few MiB, where the
// kernel refuses, or off Linux.
void advise_huge_pages(void* data, std::size_t bytes);

// `count` copies of `value` in storage advised for huge pages before it is first written.
template <class T>
std::vector<T> huge_vector(std::size_t count, const T& value = T()) {
  std::vector<T> v;
  v.reserve(count);
  advise_huge_pages(v.data(), count * sizeof(T));
  v.assign(count, value);
  return v;
}

}  // namespace parasol
