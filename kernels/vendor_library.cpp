#include "kernels/vendor_library.hpp"

#include <dlfcn.h>

#include <string>

#include "kernels/error.hpp"

namespace parasol {

void* open_vendor_library(const char* what, const char* soname, const char* fallback_dir) {
  // RTLD_NOW: a library that cannot bind its own dependencies fails here, with its reason, not at
  // some later call. RTLD_LOCAL: its symbols stay out of the process's global scope.
  void* library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (library != nullptr) return library;
  std::string reason = dlerror();
  const std::string dir = fallback_dir != nullptr ? fallback_dir : "";
  if (!dir.empty()) {
    const std::string path = dir + "/" + soname;
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) return library;
    reason += "; " + std::string(dlerror());
  }
  throw Error(std::string(what) + " is needed by this run but could not be loaded (" + reason +
              "): put the folder holding " + soname + " on LD_LIBRARY_PATH");
}

void* vendor_symbol(void* library, const char* what, const char* name) {
  dlerror();
  void* symbol = dlsym(library, name);
  if (symbol == nullptr)
    throw Error(std::string(what) + " was loaded but has no " + name + " (" + dlerror() +
                "): it is older than the headers this parasol was built with");
  return symbol;
}

}  // namespace parasol
