// Whether this process was started by an MPI launcher (mpirun, mpiexec, srun), read from the
// variables launchers set. Only a launched process initialises MPI: a plain `parasol run` is a
// one-rank run that never touches MPI.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace parasol::comm {

struct Launch {
  std::string launcher;  // "Open MPI", "MVAPICH2", "PMI (MPICH, Intel MPI)", "PMIx", "Slurm", ...
  std::string evidence;  // the variable that said so, e.g. "OMPI_COMM_WORLD_SIZE=4"
  int size = 0;          // how many ranks it started; 0 where it does not say
  // This process's rank among those on its host, where the launcher says (Open MPI's
  // OMPI_COMM_WORLD_LOCAL_RANK, Slurm's SLURM_LOCALID, ...); -1 where it does not. Known before
  // MPI is initialised, so a rank's device can be chosen, and its context made, meanwhile.
  int local_rank = -1;
};

// `getenv` is a parameter so the tests can hand in an environment of their own.
using GetEnv = std::function<const char*(const char*)>;
std::optional<Launch> detect_launch(const GetEnv& getenv);
std::optional<Launch> detect_launch();  // from this process's environment

}  // namespace parasol::comm
