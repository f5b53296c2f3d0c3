// cuBLAS, cuFFT, cuRAND and NCCL, opened at their first call rather than at the process's start.
//
// Linked the usual way, every one of them is loaded, relocated and statically initialised before
// main() by every process, `parasol --help` and CPU runs included (libcublasLt alone is 540 MB of
// code): `--help` took 0.28 s and 236 MB resident, now 0.02 s and 15 MB (docs/journal/2026-11.md,
// "Start-up"). Instead the
// solvers keep calling the libraries' own names, which this layer defines: each definition
// forwards through a table of function pointers that dlopen()s the library and resolves every
// function the table lists at the first call of any of them. A library that cannot be opened, or
// lacks a function, is an Error naming it at that call; the PARASOL_CUBLAS... checks of the calls
// themselves are unchanged.
//
// The definitions live in static libraries (parasol_kernels, parasol_comm are STATIC) and so in
// executables, which export none of them (no library linked at build time refers to them): the
// real library, opened RTLD_LOCAL, binds its internal calls to itself, never to these. Built
// into a shared library they would be exported and could take those calls: keep them static.
//
// Each library's file lists its functions once, as F(return type, name, (parameters),
// (arguments)), and expands PARASOL_VENDOR_LIBRARY over the list: the compiler checks every
// definition against the library's own header, so a list that drifts from the header does not
// build, and a call of a function the list lacks is an undefined reference: add it to the list.
#pragma once

namespace parasol {

// dlopen()s `soname` (the dynamic linker's search: LD_LIBRARY_PATH, the executable's run path,
// the system's cache), then `fallback_dir`/`soname` where that dir is not empty (the toolkit's
// folder the build found). Throws Error naming `what` ("cuBLAS"), both places and dlerror()'s
// reason. The library stays open for the process's life.
void* open_vendor_library(const char* what, const char* soname, const char* fallback_dir);

// The address of `name` in `library`; throws Error naming `what` and the function.
void* vendor_symbol(void* library, const char* what, const char* name);

}  // namespace parasol

// "libcublas.so.13" from "libcublas" and the header's CUBLAS_VER_MAJOR: the library the headers
// describe, as the linker would have recorded it.
#define PARASOL_VENDOR_STRING_(x) #x
#define PARASOL_VENDOR_SONAME(stem, major) stem ".so." PARASOL_VENDOR_STRING_(major)

#define PARASOL_VENDOR_POINTER_(ret, name, params, args) decltype(&::name) name = nullptr;
#define PARASOL_VENDOR_RESOLVE_(ret, name, params, args) \
  table.name = reinterpret_cast<decltype(&::name)>(::parasol::vendor_symbol(library, what, #name));
#define PARASOL_VENDOR_DEFINE_(ret, name, params, args)                   \
  extern "C" ret name params {                                     \
    return vendor_table().name args;                                      \
  }

// In one source file per library, outside any namespace, with the library's header included.
#define PARASOL_VENDOR_LIBRARY(WHAT, SONAME, FALLBACK_DIR, FUNCTIONS)                       \
  namespace {                                                                               \
  struct VendorTable {                                                                      \
    FUNCTIONS(PARASOL_VENDOR_POINTER_)                                                      \
  };                                                                                        \
  const VendorTable& vendor_table() {                                                       \
    /* Made once, thread-safely; an Error leaves it unmade, and the next call tries again. */ \
    static const VendorTable made = [] {                                                    \
      const char* what = WHAT;                                                              \
      void* library = ::parasol::open_vendor_library(what, SONAME, FALLBACK_DIR);           \
      VendorTable table;                                                                    \
      FUNCTIONS(PARASOL_VENDOR_RESOLVE_)                                                    \
      return table;                                                                         \
    }();                                                                                    \
    return made;                                                                            \
  }                                                                                         \
  }                                                                                         \
  FUNCTIONS(PARASOL_VENDOR_DEFINE_)
