// Checkpoints: everything a solver needs to continue a run where it stopped, in one HDF5 file per
// rank. Written as a result is (a temporary beside the final name, renamed into place only when
// complete, removed on a signal), so a checkpoint is whole or absent and the one before it stays
// intact until the new one is in place. Read back checked, before any computing: the solver,
// the parameters that must match, that every part is of one step, every array's size and a
// checksum of the state; a file that fails any of these is an InputError (exit 2) naming what
// does not match.
//
// Across ranks each part holds its rank's arrays. An array that is a rank's piece of one whole
// (a slab of a grid, some of a batch's systems) records where it lies in that whole (Share), so a
// run on another rank count can read its own pieces from whichever parts hold them. Scalars are
// the same on every rank, and such a run reads rank 0's; a solver whose ranks' own state folds
// into one rank's (montecarlo's streams of batches) reads each part's.
//
// Layout (docs/hdf5-layout.md):
//   /               solver, step, rank, ranks, checksum (of the state: every array and scalar)
//   /parameters     the run's resolved parameters, as a result stores them
//   /provenance     where and when it was written, by what
//   /state/NAME     the solver's arrays (float or double), each with its own `checksum`, and
//                   `share` = [total, first, owned_begin, owned_end] when it is a piece of a whole
//   /state@NAME     the solver's scalars (iteration counts, running sums, stream positions)
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "io/value.hpp"
#include "kernels/error.hpp"

namespace parasol::io {

// The status of a run that wrote a checkpoint on a signal and stopped: EX_TEMPFAIL of
// sysexits.h, "try again later", which is what it asks of a job script (restart from it).
inline constexpr int kCheckpointedStatus = 75;

// Where a run writes its checkpoints by default: beside the result, "<stem>.checkpoint.h5".
std::filesystem::path default_checkpoint_path(const std::filesystem::path& result);

// Rank `rank`'s part of a checkpoint among `ranks`: `file` itself on one rank and on rank 0,
// "<stem>.rank<r><ext>" beside it on the others.
std::filesystem::path checkpoint_part(const std::filesystem::path& file, int rank, int ranks);

// A 64-bit checksum of `bytes` bytes (four interleaved multiply-xor lanes: several GB/s, so a
// checkpoint is written at the disk's speed, not the checksum's), as 16 hex digits.
std::string state_checksum(const void* data, std::size_t bytes);

// Where one rank's array lies in the whole it is a piece of: its values are [first, first + its
// size) of a whole of `total` values, and [owned_begin, owned_end) of those are the rank's own;
// the rest are halos, copies of a neighbour's values. The ranks' own ranges cut the whole.
struct Share {
  std::uint64_t total = 0;
  std::uint64_t first = 0;
  std::uint64_t owned_begin = 0, owned_end = 0;
};

class CheckpointWriter {
 public:
  // `rank`'s part of a checkpoint of `solver` after `step` among `ranks`, to be committed to
  // checkpoint_part(file, rank, ranks) (a temporary is made beside it now).
  CheckpointWriter(const std::filesystem::path& file, const std::string& solver,
                   std::int64_t step, int rank, int ranks);

  // The solver's state: arrays and scalars. Each name once.
  void add(const std::string& name, const float* values, std::uint64_t count);
  void add(const std::string& name, const double* values, std::uint64_t count);
  template <class T>
  void add(const std::string& name, const std::vector<T>& values) {
    add(name, values.data(), values.size());
  }
  void add(const std::string& name, const Value& scalar);
  // An array that is this rank's piece of a whole, `share` saying where.
  void add(const std::string& name, const float* values, std::uint64_t count, const Share& share);
  void add(const std::string& name, const double* values, std::uint64_t count, const Share& share);

  // /parameters, /provenance and anything else that describes the run; not part of the state.
  ResultFile& file() { return file_; }

  // Stores the checksum and puts the file in place. With `keep` > 1 the checkpoint it replaces
  // is kept as FILE.1 (FILE.1 as FILE.2, ...; each rank's part as the part of those names), up
  // to keep - 1 older ones; the newest is always at its name, so there is no moment without one.
  void commit(std::int64_t keep);

  // Bytes of state written so far, for the rate a run reports.
  std::uint64_t bytes() const { return bytes_; }

 private:
  void note(const std::string& name, const std::string& checksum);
  template <class T>
  void add_array(const std::string& name, const T* values, std::uint64_t count,
                 const Share* share);

  std::filesystem::path base_, path_;  // the checkpoint's name, and this rank's part of it
  int rank_, ranks_;
  ResultFile file_;
  std::string digest_;  // name=checksum of every array and scalar, in the order added
  std::set<std::string> names_;
  std::uint64_t bytes_ = 0;
};

class CheckpointReader {
 public:
  // Opens and checks the checkpoint `file` (its name: rank 0's part) for `rank` of a run on
  // `ranks`, with the resolved `parameters`: every key must hold the same value in the checkpoint
  // except the [checkpoint] keys and those in `may_differ` (how long to run on, say). Written on
  // as many ranks, this rank's part is read; on another count, every part (each checked alike,
  // and all of one step). Each refusal is an InputError naming the file and what does not match.
  CheckpointReader(const std::filesystem::path& file, const std::string& solver, int rank,
                   int ranks, const std::map<std::string, Value>& parameters,
                   const std::set<std::string>& may_differ);
  ~CheckpointReader();
  CheckpointReader(const CheckpointReader&) = delete;
  CheckpointReader& operator=(const CheckpointReader&) = delete;

  std::int64_t step() const { return step_; }
  // The ranks that wrote it, and this run's.
  int written_ranks() const { return written_ranks_; }
  int ranks() const { return ranks_; }

  // This rank's own part's array of exactly `size` values, its checksum checked. Written on
  // another rank count there is no such part: refused, naming both counts.
  std::vector<float> floats(const std::string& name, std::uint64_t size) const;
  std::vector<double> doubles(const std::string& name, std::uint64_t size) const;
  // Values [first, first + count) of the whole of `total` values that the ranks' `name` arrays
  // were pieces of (written with a Share): from this rank's own part when it holds them all, and
  // otherwise from the parts that own them, whichever rank count wrote it. Each part's array is
  // read whole, so that its checksum is checked.
  std::vector<float> floats(const std::string& name, std::uint64_t first, std::uint64_t count,
                            std::uint64_t total) const;
  std::vector<double> doubles(const std::string& name, std::uint64_t first, std::uint64_t count,
                              std::uint64_t total) const;
  // A state scalar: this rank's part's, or on another rank count rank 0's.
  Value scalar(const std::string& name) const;
  std::int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;

  // Written rank `part`'s own state, for a run that folds the parts of several written ranks into
  // one rank's (montecarlo's streams of batches): any part on another rank count, and this rank's
  // own on as many.
  Value scalar(const std::string& name, int part) const;
  std::int64_t integer(const std::string& name, int part) const;
  std::vector<float> floats(const std::string& name, std::uint64_t size, int part) const;

  // For state that only a run on as many ranks can continue: refused on another rank count,
  // naming both and `why`.
  void require_same_ranks(const std::string& why) const;

  // The part this rank reads its scalars from (the checkpoint's name on rank 0).
  const std::filesystem::path& path() const;

 private:
  struct Part;
  template <class T>
  std::vector<T> array(const Part& part, const std::string& name, std::uint64_t size) const;
  template <class T>
  std::vector<T> range(const std::string& name, std::uint64_t first, std::uint64_t count,
                       std::uint64_t total) const;
  std::unique_ptr<Part> open(const std::filesystem::path& path, const std::string& solver,
                             int rank, int ranks, const std::map<std::string, Value>& parameters,
                             const std::set<std::string>& may_differ) const;
  const Part& primary() const { return *parts_.front(); }
  const Part& part_of(int written_rank) const;
  Value scalar_in(const Part& part, const std::string& name) const;
  std::int64_t integer_in(const Part& part, const std::string& name) const;

  std::filesystem::path file_;
  // This rank's part alone, or every part in rank order; the first is the one scalars come from.
  std::vector<std::unique_ptr<Part>> parts_;
  int written_ranks_ = 1, ranks_ = 1, rank_ = 0;
  std::int64_t step_ = 0;
};

// The refusal of a checkpoint beyond the run's last step: "checkpoint refused: it is at `at`
// ("iteration 120"), past `key` = `last`".
InputError past_the_end(const CheckpointReader& r, const std::string& at, const std::string& key,
                        std::int64_t last);

// A restart's step count, the integer `name` ("iterations"), refused when past the run's
// `last` (its key `key`): "checkpoint refused: it is at `what` N, past `key` = `last`".
std::int64_t restart_step(const CheckpointReader& r, const std::string& name,
                          const std::string& what, const std::string& key, std::int64_t last);

}  // namespace parasol::io
