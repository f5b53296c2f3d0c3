#include "comm/launcher.hpp"

#include <array>
#include <cstdlib>

namespace parasol::comm {
namespace {

struct Sign {
  const char* launcher;
  const char* variable;       // set in every process the launcher starts
  const char* size_variable;  // where it says how many; nullptr when it does not
  const char* local_variable;  // where it says the rank on this host; nullptr when it does not
};

// The most specific first: Open MPI also sets PMIX_RANK, and Slurm's srun may sit under either.
constexpr std::array kSigns{
    Sign{"Open MPI", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    Sign{"MVAPICH2", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_LOCAL_RANK"},
    Sign{"PMI (MPICH, Intel MPI)", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    Sign{"PMI (MPICH, Intel MPI)", "PMI_SIZE", "PMI_SIZE", "MPI_LOCALRANKID"},
    Sign{"PMIx", "PMIX_RANK", nullptr, nullptr},
    Sign{"Cray PALS", "PALS_RANKID", "PALS_SIZE", "PALS_LOCAL_RANKID"},
    Sign{"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

// A count or an index from a variable: `none` unless the whole text is a number in [low, 2^30).
int parse_number(const char* text, long low, int none) {
  if (text == nullptr) return none;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return (end != text && *end == '\0' && value >= low && value < (1L << 30))
             ? static_cast<int>(value)
             : none;
}

}  // namespace

std::optional<Launch> detect_launch(const GetEnv& getenv) {
  for (const Sign& sign : kSigns) {
    const char* value = getenv(sign.variable);
    if (value == nullptr) continue;
    const char* size_text = sign.size_variable != nullptr ? getenv(sign.size_variable) : nullptr;
    // Slurm sets SLURM_PROCID in a batch script's own shell too; counting it only beside
    // SLURM_NTASKS keeps a script without --ntasks a plain one-rank run.
    if (std::string(sign.launcher) == "Slurm" && size_text == nullptr) continue;
    const char* local_text = sign.local_variable != nullptr ? getenv(sign.local_variable) : nullptr;
    return Launch{sign.launcher, std::string(sign.variable) + "=" + value,
                  parse_number(size_text, 1, 0), parse_number(local_text, 0, -1)};
  }
  return std::nullopt;
}

std::optional<Launch> detect_launch() {
  return detect_launch([](const char* name) -> const char* { return std::getenv(name); });
}

}  // namespace parasol::comm
