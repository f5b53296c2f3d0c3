// Checkpoints of a solver that iterates, steps in time or runs batches: the [checkpoint] keys
// every such solver shares, and how its loop meets the front end at a safe point. Plain C++: a
// solver keeps a CheckpointParams in its Params and takes a SafePoints in its solve; the writing
// and reading of the file is the front end's (io/checkpoint.hpp, apps/checkpointing.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "kernels/agreement.hpp"
#include "kernels/declaration.hpp"

namespace parasol {

struct CheckpointParams {
  std::int64_t every = 0;    // steps (iterations, batches) between checkpoints; 0: none by count
  double every_seconds = 0;  // seconds between checkpoints; 0: none by time
  std::string file;          // "": beside the result, <result stem>.checkpoint.h5
  std::int64_t keep = 1;     // checkpoints kept: the newest as `file`, older ones as file.1, ...
  // A run that checkpoints at all also checkpoints on a signal (SIGTERM, SIGINT, SIGUSR1): a
  // run given no [checkpoint] key ends on one as it always has, without writing anything.
  bool enabled() const { return every > 0 || every_seconds > 0 || !file.empty(); }
};

// checkpoint.every, .every_seconds, .file and .keep into the CheckpointParams `field(p)`
// returns; `steps` names what a step is ("iterations", "time steps", "batches"). With `when`,
// they are read only for the problems it admits (`described` says which, as only_if does).
template <class P, class Field>
void add_checkpoint_keys(Keys<P>& keys, Field field, const std::string& steps,
                         std::function<bool(const P&)> when = {}, const std::string& described = "") {
  const std::size_t first = keys.size();
  keys.push_back(key<P>("checkpoint.every", [field](P& p) -> auto& { return field(p).every; },
                        "write a checkpoint after every this many " + steps +
                            "; 0: none by count. Any [checkpoint] key also "
                            "makes SIGTERM, SIGINT and SIGUSR1 write one and stop (status 75)")
                     .at_least(0)
                     .unit(steps));
  Key<P> seconds = key<P>(
      "checkpoint.every_seconds", [field](P& p) -> auto& { return field(p).every_seconds; },
      "write a checkpoint at the first safe point after this many seconds since the last; 0: "
      "none by time");
  auto inner = seconds.set;
  seconds.set = [inner](P& p, const KeyValue& v) {
    if (!(std::get<double>(v) >= 0))
      throw InputError("", "", "expected seconds >= 0, got " + short_number(std::get<double>(v)));
    inner(p, v);
  };
  keys.push_back(std::move(seconds).unit("s").values("≥ 0"));
  keys.push_back(key<P>("checkpoint.file", [field](P& p) -> auto& { return field(p).file; },
                        "where checkpoints go (from the current folder, as -o); across N ranks "
                        "rank r > 0 writes its part beside it as NAME.rank<r>.h5. `parasol run "
                        "FILE --restart CHECKPOINT` continues from one")
                     .optional("beside the result: <result stem>.checkpoint.h5"));
  keys.push_back(key<P>("checkpoint.keep", [field](P& p) -> auto& { return field(p).keep; },
                        "checkpoints kept: the newest under `checkpoint.file`, the older ones as "
                        "FILE.1 (the next newest), FILE.2, ...")
                     .at_least(1));
  if (when)
    for (std::size_t i = first; i < keys.size(); ++i) {
      keys[i].read_if = when;
      keys[i].info.read_when = described;
    }
}

// Whether a key is one of the [checkpoint] table's: a restart may change these freely.
inline bool is_checkpoint_key(const std::string& key) { return key.rfind("checkpoint.", 0) == 0; }

// What a solver's loop does at a safe point, after step `step` with its state whole.
enum class AtSafePoint { go_on, save, save_and_stop };

// How a solver meets checkpoints. Its safe points are its own (between the iterations it checks
// convergence at, between time steps, between batches), plus every multiple of `every`, plus its
// last step; at each it asks `at`, and on save hands its state to `save`. Across ranks every rank
// reaches the same safe points (they depend on the step alone), and `at` gives every rank the
// same answer. `from`: the state a restart continues from (null: from the start).
template <class State>
struct SafePoints {
  const State* from = nullptr;
  std::int64_t every = 0;
  std::function<AtSafePoint(std::int64_t step)> at;
  std::function<void(const State&)> save;

  // Whether `step` is a safe point beyond the solver's own: a multiple of `every`, or the last.
  bool due(std::int64_t step, std::int64_t last) const {
    return step == last || (every > 0 && step % every == 0);
  }
  // The first safe point after `step` that `every` or `last` sets (a solver that runs steps in
  // batches ends a batch there).
  std::int64_t next(std::int64_t step, std::int64_t last) const {
    if (every <= 0) return last;
    const std::int64_t n = (step / every + 1) * every;
    return n < last ? n : last;
  }
};

}  // namespace parasol
