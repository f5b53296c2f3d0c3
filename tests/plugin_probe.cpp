// A reader or writer in a process of its own, for tests that set HDF5_PLUGIN_PATH (HDF5 reads it
// once, when it starts):
//   plugin_probe read FILE             reads /u whole
//   plugin_probe write COMPRESSION FILE creates FILE with that compression, and drops it
// Prints the outcome, or the exception's class and what(), on one line; exits 0 either way.
#include <cstdio>
#include <string>

#include "io/result_file.hpp"
#include "kernels/error.hpp"

int main(int argc, char** argv) {
  using namespace parasol;
  const std::string action = argc > 1 ? argv[1] : "";
  try {
    if (action == "read" && argc == 3) {
      const io::ResultReader reader(argv[2]);
      std::printf("read %zu values\n", reader.read_doubles("/u").size());
    } else if (action == "write" && argc == 4) {
      const io::ResultFile out(argv[3], true, io::parse_compression(argv[2]));
      std::printf("created\n");
    } else {
      std::fprintf(stderr, "usage: plugin_probe read FILE | write COMPRESSION FILE\n");
      return 2;
    }
  } catch (const InputError& e) {
    std::printf("InputError: %s\n", e.what());
  } catch (const Error& e) {
    std::printf("Error: %s\n", e.what());
  }
  return 0;
}
