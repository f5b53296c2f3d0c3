#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

#include "kernels/checkpoint_keys.hpp"
#include "kernels/error.hpp"

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

constexpr const char* kState = "/state";
// /@checkpoint_format: bumped when the layout changes (2: a piece of a whole records its share)
constexpr std::int64_t kFormat = 2;

// A value as one text, the same for what was written and what HDF5 gives back (a bool comes
// back as a 1-byte integer, so both are "0" or "1"), for checksums and comparisons.
std::string text_of(const Value& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        char number[40];
        if constexpr (std::is_same_v<V, bool>) {
          return v ? "1" : "0";
        } else if constexpr (std::is_same_v<V, std::int64_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<V, double>) {
          std::snprintf(number, sizeof number, "%.17g", v);
          return number;
        } else if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else {
          std::string text = "[";
          for (const auto& e : v) {
            if (text.size() > 1) text += ", ";
            if constexpr (std::is_same_v<std::decay_t<decltype(e)>, double>) {
              std::snprintf(number, sizeof number, "%.17g", e);
              text += number;
            } else {
              text += std::to_string(e);
            }
          }
          return text + "]";
        }
      },
      value);
}

std::string hex(std::uint64_t h) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// Checkpoints replaced, released on threads of their own: freeing the pages of the one a rename
// replaces took 0.5 s of a 512^3 float checkpoint's 1.3 s, and nothing needs to wait for it. The
// old file is held open across the rename, so its last reference, and the freeing, is the close
// on the thread; a process that dies first has it closed by the kernel, and leaves no name.
class Releases {
 public:
  ~Releases() {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (std::thread& t : threads_) t.join();
  }
  void release(int fd) {
    const std::lock_guard<std::mutex> lock(mutex_);
    // The one before had a whole interval between checkpoints to finish.
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    threads_.emplace_back([fd] { close(fd); });
  }

 private:
  std::mutex mutex_;
  std::vector<std::thread> threads_;
};

Releases& releases() {
  static Releases all;
  return all;
}

Value share_value(const Share& s) {
  return std::vector<std::int64_t>{static_cast<std::int64_t>(s.total),
                                   static_cast<std::int64_t>(s.first),
                                   static_cast<std::int64_t>(s.owned_begin),
                                   static_cast<std::int64_t>(s.owned_end)};
}

std::string ranks_text(std::int64_t n) {
  return std::to_string(n) + " rank" + (n == 1 ? "" : "s");
}

}  // namespace

fs::path default_checkpoint_path(const fs::path& result) {
  fs::path p = result;
  return p.replace_filename(result.stem().string() + ".checkpoint.h5");
}

fs::path checkpoint_part(const fs::path& file, int rank, int ranks) {
  if (ranks <= 1 || rank == 0) return file;
  fs::path p = file;
  return p.replace_filename(file.stem().string() + ".rank" + std::to_string(rank) +
                            file.extension().string());
}

std::string state_checksum(const void* data, std::size_t bytes) {
  // Eight lanes of 64-bit words, each step h = (h ^ w) * odd: a bijection of h for a given w, so
  // any one changed word changes its lane's end value, and the lanes run side by side in the
  // pipeline. Four lanes with an extra shift-xor a step ran at 1.4 GB/s on the 512^3 field, a
  // third of a write's time; this runs at memory speed, and beside the write (CheckpointWriter).
  constexpr std::uint64_t kPrime = 0x100000001b3ull, kMix = 0x9e3779b97f4a7c15ull;
  constexpr int kLanes = 8;
  std::uint64_t lane[kLanes];
  for (int l = 0; l < kLanes; ++l) lane[l] = 0xcbf29ce484222325ull + static_cast<std::uint64_t>(l) * kMix;
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t words = bytes / 8;
  std::size_t i = 0;
  for (; i + kLanes <= words; i += kLanes) {
    std::uint64_t w[kLanes];
    std::memcpy(w, p + 8 * i, sizeof w);
    for (int l = 0; l < kLanes; ++l) lane[l] = (lane[l] ^ w[l]) * kPrime;
  }
  std::uint64_t h = bytes * kMix;
  for (; i < words; ++i) {
    std::uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);
    h = (h ^ w) * kPrime;
  }
  for (std::size_t b = 8 * words; b < bytes; ++b) h = (h ^ p[b]) * kPrime;
  for (std::uint64_t l : lane) h = ((h ^ l) * kMix) ^ (h >> 29);
  return hex(h);
}

// ---------------------------------------------------------------------------------------------

CheckpointWriter::CheckpointWriter(const fs::path& file, const std::string& solver,
                                   std::int64_t step, int rank, int ranks)
    : base_(file),
      path_(checkpoint_part(file, rank, ranks)),
      rank_(rank),
      ranks_(ranks),
      file_(path_, /*force=*/true) {
  file_.set_attribute("/", "solver", solver);
  file_.set_attribute("/", "checkpoint_format", kFormat);
  file_.set_attribute("/", "step", step);
  file_.set_attribute("/", "rank", std::int64_t{rank});
  file_.set_attribute("/", "ranks", std::int64_t{ranks});
}

void CheckpointWriter::note(const std::string& name, const std::string& checksum) {
  if (!names_.insert(name).second)
    throw Error("checkpoint: state `" + name + "` added twice");
  digest_ += name + "=" + checksum + ";";
}

template <class T>
void CheckpointWriter::add_array(const std::string& name, const T* values, std::uint64_t count,
                                 const Share* share) {
  if (names_.count(name) > 0) throw Error("checkpoint: state `" + name + "` added twice");
  // The checksum is made on another core while HDF5 writes: the write waits for the disk.
  std::future<std::string> sum = std::async(std::launch::async, [values, count] {
    return state_checksum(values, count * sizeof(T));
  });
  const std::string path = std::string(kState) + "/" + name;
  try {
    file_.write_field(path, values, {count});
  } catch (...) {
    sum.wait();
    throw;
  }
  std::string checksum = sum.get();
  file_.set_attribute(path, "checksum", checksum);
  if (share != nullptr) {
    const Value where = share_value(*share);
    file_.set_attribute(path, "share", where);
    checksum += "@" + text_of(where);  // where the piece lies is state too
  }
  note(name, checksum);
  bytes_ += count * sizeof(T);
}

void CheckpointWriter::add(const std::string& name, const float* values, std::uint64_t count) {
  add_array(name, values, count, nullptr);
}

void CheckpointWriter::add(const std::string& name, const double* values, std::uint64_t count) {
  add_array(name, values, count, nullptr);
}

void CheckpointWriter::add(const std::string& name, const float* values, std::uint64_t count,
                           const Share& share) {
  add_array(name, values, count, &share);
}

void CheckpointWriter::add(const std::string& name, const double* values, std::uint64_t count,
                           const Share& share) {
  add_array(name, values, count, &share);
}

void CheckpointWriter::add(const std::string& name, const Value& scalar) {
  const std::string text = text_of(scalar);
  note(name, state_checksum(text.data(), text.size()));
  file_.set_attribute(kState, name, scalar);
}

void CheckpointWriter::commit(std::int64_t keep) {
  std::string names;
  for (std::size_t at = 0; at < digest_.size();) {
    const std::size_t eq = digest_.find('=', at);
    names += (names.empty() ? "" : ",") + digest_.substr(at, eq - at);
    at = digest_.find(';', eq) + 1;
  }
  // Set last: the provenance a run adds to file() names a result's format.
  file_.set_attribute("/", "format", "parasol-checkpoint-" + std::to_string(kFormat));
  file_.set_attribute("/", "state", names);
  file_.set_attribute("/", "checksum", state_checksum(digest_.data(), digest_.size()));
  // Older checkpoints move down one place, oldest first, before the new one takes the name: a
  // hard link keeps the current one at `path` until the rename replaces it.
  if (keep > 1 && fs::exists(path_)) {
    const auto older = [&](std::int64_t i) {
      return checkpoint_part(fs::path(base_.string() + "." + std::to_string(i)), rank_, ranks_);
    };
    for (std::int64_t i = keep - 1; i >= 2; --i) {
      std::error_code ec;
      if (fs::exists(older(i - 1), ec)) fs::rename(older(i - 1), older(i), ec);
      if (ec)
        throw Error(older(i - 1).string() + ": keeping an older checkpoint failed: " + ec.message());
    }
    // With keep = 2 the one before it goes; with more it has just moved down.
    std::error_code ec;
    fs::remove(older(1), ec);
    if (link(path_.c_str(), older(1).c_str()) != 0)
      throw Error(older(1).string() + ": keeping the previous checkpoint failed: link: " +
                  std::strerror(errno));
    file_.commit();
    return;
  }
  const int previous = keep == 1 ? open(path_.c_str(), O_RDONLY | O_CLOEXEC) : -1;
  try {
    file_.commit();
  } catch (...) {
    if (previous >= 0) close(previous);
    throw;
  }
  if (previous >= 0) releases().release(previous);
}

// ---------------------------------------------------------------------------------------------

// One rank's part of a checkpoint, opened and checked.
struct CheckpointReader::Part {
  explicit Part(const fs::path& p) : path(p), reader(p) {}
  InputError refused(const std::string& why) const {
    return InputError(path.string(), "", "checkpoint refused: " + why);
  }
  // Where its `name` lies in the whole, when it is a piece of one.
  std::optional<Share> share(const std::string& name) const {
    const std::string at = std::string(kState) + "/" + name;
    if (!reader.exists(at) || !reader.has_attribute(at, "share")) return std::nullopt;
    const auto v = std::get<std::vector<std::int64_t>>(reader.attribute(at, "share"));
    if (v.size() != 4) throw refused("its `" + name + "` has a share of " + text_of(v));
    return Share{static_cast<std::uint64_t>(v[0]), static_cast<std::uint64_t>(v[1]),
                 static_cast<std::uint64_t>(v[2]), static_cast<std::uint64_t>(v[3])};
  }

  fs::path path;
  ResultReader reader;
  std::int64_t step = 0;
};

CheckpointReader::~CheckpointReader() = default;

const fs::path& CheckpointReader::path() const { return primary().path; }

std::unique_ptr<CheckpointReader::Part> CheckpointReader::open(
    const fs::path& path, const std::string& solver, int rank, int ranks,
    const std::map<std::string, Value>& parameters, const std::set<std::string>& may_differ) const {
  const auto refused = [&](const std::string& why) {
    return InputError(path.string(), "", "checkpoint refused: " + why);
  };
  try {
    if (!fs::exists(path)) throw refused("no such file");
    auto part = std::make_unique<Part>(path);
    const ResultReader& r = part->reader;
    for (const char* name : {"solver", "checkpoint_format", "step", "rank", "ranks", "state", "checksum"})
      if (!r.has_attribute("/", name))
        throw refused(std::string("not a checkpoint (no /@") + name + ")");
    const std::string written_by = std::get<std::string>(r.attribute("/", "solver"));
    if (written_by != solver)
      throw refused("written by " + written_by + ", and this run is " + solver);
    if (std::get<std::int64_t>(r.attribute("/", "checkpoint_format")) != kFormat)
      throw refused("written in another layout of checkpoints (format " +
                    text_of(r.attribute("/", "checkpoint_format")) + ")");
    // Rank 0's part is opened first to learn the count; every other part must agree with it.
    if (ranks > 0) {
      const auto written_ranks = std::get<std::int64_t>(r.attribute("/", "ranks"));
      if (written_ranks != ranks)
        throw refused("is a part of a checkpoint by " + ranks_text(written_ranks) + ", and its "
                      "rank 0's part says " + ranks_text(ranks));
    }
    if (std::get<std::int64_t>(r.attribute("/", "rank")) != rank)
      throw refused("is rank " + text_of(r.attribute("/", "rank")) + "'s part, expected rank " +
                    std::to_string(rank) + "'s");
    part->step = std::get<std::int64_t>(r.attribute("/", "step"));

    // The problem must be the same one: every parameter but those a restart may change.
    const auto free = [&](const std::string& key) {
      return is_checkpoint_key(key) || may_differ.count(key) > 0;
    };
    std::map<std::string, std::string> stored;
    for (const std::string& key : r.attribute_names("/parameters"))
      stored[key] = text_of(r.attribute("/parameters", key));
    for (const auto& [key, value] : parameters) {
      if (free(key)) continue;
      const auto it = stored.find(key);
      if (it == stored.end()) throw refused(key + " is " + text_of(value) + " here and not set in it");
      if (it->second != text_of(value))
        throw refused(key + " is " + text_of(value) + " here and " + it->second + " in it");
    }
    for (const auto& [key, text] : stored)
      if (!free(key) && parameters.count(key) == 0)
        throw refused(key + " is " + text + " in it and not set here");

    // The state's own checksum, over every array's checksum (and share) and every scalar: an
    // edited or damaged attribute shows here, a damaged array when it is read.
    std::string digest;
    const std::string names = std::get<std::string>(r.attribute("/", "state"));
    for (std::size_t at = 0; at < names.size();) {
      const std::size_t comma = std::min(names.find(',', at), names.size());
      const std::string name = names.substr(at, comma - at);
      const std::string path_in = std::string(kState) + "/" + name;
      std::string sum;
      if (r.exists(path_in)) {
        sum = std::get<std::string>(r.attribute(path_in, "checksum"));
        if (r.has_attribute(path_in, "share")) sum += "@" + text_of(r.attribute(path_in, "share"));
      } else if (r.has_attribute(kState, name)) {
        const std::string text = text_of(r.attribute(kState, name));
        sum = state_checksum(text.data(), text.size());
      } else {
        throw refused("its state `" + name + "` is missing");
      }
      digest += name + "=" + sum + ";";
      at = comma + 1;
    }
    if (state_checksum(digest.data(), digest.size()) != std::get<std::string>(r.attribute("/", "checksum")))
      throw refused("the checksum of its state does not match (the file is damaged)");
    return part;
  } catch (const InputError&) {
    throw;
  } catch (const std::bad_variant_access&) {
    throw refused("an attribute of the wrong type (not a checkpoint this build wrote)");
  } catch (const Error& e) {
    throw refused(std::string("unreadable (truncated or damaged): ") + e.what());
  }
}

CheckpointReader::CheckpointReader(const fs::path& file, const std::string& solver, int rank,
                                   int ranks, const std::map<std::string, Value>& parameters,
                                   const std::set<std::string>& may_differ)
    : file_(file), ranks_(ranks), rank_(rank) {
  // Rank 0's part says how many ranks wrote the checkpoint.
  parts_.push_back(open(file, solver, 0, /*ranks=*/0, parameters, may_differ));
  const ResultReader& first = parts_[0]->reader;
  try {
    written_ranks_ = static_cast<int>(std::get<std::int64_t>(first.attribute("/", "ranks")));
  } catch (const std::bad_variant_access&) {
    throw parts_[0]->refused("an attribute of the wrong type (not a checkpoint this build wrote)");
  }
  if (written_ranks_ < 1) throw parts_[0]->refused("written by " + ranks_text(written_ranks_));
  if (written_ranks_ == ranks) {
    // As many ranks: each reads its own part, as the one that wrote it did.
    if (rank != 0) {
      parts_.clear();
      parts_.push_back(open(checkpoint_part(file, rank, ranks), solver, rank, ranks, parameters,
                            may_differ));
    }
  } else {
    // Another count: this rank's pieces may lie in any part.
    for (int r = 1; r < written_ranks_; ++r)
      parts_.push_back(open(checkpoint_part(file, r, written_ranks_), solver, r, written_ranks_,
                            parameters, may_differ));
    for (const auto& part : parts_)
      if (part->step != parts_[0]->step)
        throw part->refused("its ranks' parts are of different steps (" +
                            std::to_string(parts_[0]->step) + " in rank 0's, " +
                            std::to_string(part->step) +
                            " in this); restart from an older checkpoint (checkpoint.keep)");
  }
  step_ = primary().step;
}

void CheckpointReader::require_same_ranks(const std::string& why) const {
  if (written_ranks_ == ranks_) return;
  throw InputError(file_.string(), "",
                   "checkpoint refused: written by " + ranks_text(written_ranks_) +
                       ", and this run has " + std::to_string(ranks_) + ": " + why +
                       " (restart on " + ranks_text(written_ranks_) + ")");
}

template <class T>
std::vector<T> CheckpointReader::array(const Part& part, const std::string& name,
                                       std::uint64_t size) const {
  const std::string at = std::string(kState) + "/" + name;
  try {
    if (!part.reader.exists(at)) throw part.refused("its state `" + name + "` is missing");
    const std::vector<std::uint64_t> dims = part.reader.dims(at);
    if (dims.size() != 1 || dims[0] != size)
      throw part.refused("its `" + name + "` has " + std::to_string(dims.empty() ? 0 : dims[0]) +
                         " values, and this run needs " + std::to_string(size));
    std::vector<T> values;
    if constexpr (std::is_same_v<T, float>) values = part.reader.read_floats(at);
    else values = part.reader.read_doubles(at);
    if (state_checksum(values.data(), values.size() * sizeof(T)) !=
        std::get<std::string>(part.reader.attribute(at, "checksum")))
      throw part.refused("the checksum of its `" + name + "` does not match (the file is damaged)");
    return values;
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw part.refused(std::string("unreadable (truncated or damaged): ") + e.what());
  }
}

template <class T>
std::vector<T> CheckpointReader::range(const std::string& name, std::uint64_t first,
                                       std::uint64_t count, std::uint64_t total) const {
  const auto share_of = [&](const Part& part) {
    try {
      const std::optional<Share> s = part.share(name);
      if (!s) throw part.refused("its `" + name + "` is not a piece of a whole (no share)");
      if (s->total != total)
        throw part.refused("its `" + name + "` is a piece of " + std::to_string(s->total) +
                           " values, and this run's whole has " + std::to_string(total));
      return *s;
    } catch (const std::bad_variant_access&) {
      throw part.refused("its `" + name + "` has a share of the wrong type");
    } catch (const InputError&) {
      throw;
    } catch (const Error& e) {
      throw part.refused(std::string("unreadable (truncated or damaged): ") + e.what());
    }
  };
  const std::uint64_t end = first + count;
  // On as many ranks this rank's own part holds its piece, halos and all: read as it was written.
  if (written_ranks_ == ranks_) {
    const Part& own = primary();
    const Share s = share_of(own);
    const std::uint64_t size = own.reader.dims(std::string(kState) + "/" + name).at(0);
    if (s.first <= first && end <= s.first + size) {
      const std::vector<T> values = array<T>(own, name, size);
      return std::vector<T>(values.begin() + static_cast<std::ptrdiff_t>(first - s.first),
                            values.begin() + static_cast<std::ptrdiff_t>(end - s.first));
    }
  }
  // Otherwise every value from the part that owns it: the owned ranges cut the whole in rank
  // order, and a halo's value is a copy of its owner's. (A whole that every rank holds all of
  // is owned by each: rank 0's part gives it.)
  std::vector<T> values(count);
  std::uint64_t filled = first;  // values [first, filled) are read
  for (const auto& part : parts_) {
    const Share s = share_of(*part);
    const std::uint64_t from = std::max(filled, s.owned_begin), to = std::min(end, s.owned_end);
    if (from >= to) continue;
    if (from != filled) break;  // a gap: no part owns the values between
    const std::uint64_t size = part->reader.dims(std::string(kState) + "/" + name).at(0);
    if (s.owned_begin < s.first || s.owned_end > s.first + size)
      throw part->refused("its `" + name + "` owns values past those it holds");
    const std::vector<T> held = array<T>(*part, name, size);
    std::copy(held.begin() + static_cast<std::ptrdiff_t>(from - s.first),
              held.begin() + static_cast<std::ptrdiff_t>(to - s.first),
              values.begin() + static_cast<std::ptrdiff_t>(from - first));
    filled = to;
  }
  if (filled != end)
    throw InputError(file_.string(), "",
                     "checkpoint refused: no part of it owns values " + std::to_string(filled) +
                         " to " + std::to_string(end) + " of `" + name + "`, which this rank needs");
  return values;
}

std::vector<float> CheckpointReader::floats(const std::string& name, std::uint64_t size) const {
  require_same_ranks("its `" + name + "` is each rank's own");
  return array<float>(primary(), name, size);
}

std::vector<double> CheckpointReader::doubles(const std::string& name, std::uint64_t size) const {
  require_same_ranks("its `" + name + "` is each rank's own");
  return array<double>(primary(), name, size);
}

std::vector<float> CheckpointReader::floats(const std::string& name, std::uint64_t first,
                                            std::uint64_t count, std::uint64_t total) const {
  return range<float>(name, first, count, total);
}

std::vector<double> CheckpointReader::doubles(const std::string& name, std::uint64_t first,
                                              std::uint64_t count, std::uint64_t total) const {
  return range<double>(name, first, count, total);
}

const CheckpointReader::Part& CheckpointReader::part_of(int written_rank) const {
  if (written_ranks_ != ranks_) return *parts_.at(static_cast<std::size_t>(written_rank));
  if (written_rank != rank_)
    throw Error("checkpoint: rank " + std::to_string(written_rank) + "'s part is not open on rank " +
                std::to_string(rank_) + ", which reads its own");
  return primary();
}

Value CheckpointReader::scalar_in(const Part& part, const std::string& name) const {
  if (!part.reader.has_attribute(kState, name))
    throw part.refused("its state `" + name + "` is missing");
  return part.reader.attribute(kState, name);
}

std::int64_t CheckpointReader::integer_in(const Part& part, const std::string& name) const {
  const Value v = scalar_in(part, name);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  throw part.refused("its `" + name + "` is not an integer");
}

Value CheckpointReader::scalar(const std::string& name) const { return scalar_in(primary(), name); }

std::int64_t CheckpointReader::integer(const std::string& name) const {
  return integer_in(primary(), name);
}

double CheckpointReader::number(const std::string& name) const {
  const Value v = scalar(name);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  throw primary().refused("its `" + name + "` is not a number");
}

Value CheckpointReader::scalar(const std::string& name, int written_rank) const {
  return scalar_in(part_of(written_rank), name);
}

std::int64_t CheckpointReader::integer(const std::string& name, int written_rank) const {
  return integer_in(part_of(written_rank), name);
}

std::vector<float> CheckpointReader::floats(const std::string& name, std::uint64_t size,
                                            int written_rank) const {
  return array<float>(part_of(written_rank), name, size);
}

InputError past_the_end(const CheckpointReader& r, const std::string& at, const std::string& key,
                        std::int64_t last) {
  return InputError(r.path().string(), "",
                    "checkpoint refused: it is at " + at + ", past " + key + " = " +
                        std::to_string(last));
}

std::int64_t restart_step(const CheckpointReader& r, const std::string& name,
                          const std::string& what, const std::string& key, std::int64_t last) {
  const std::int64_t step = r.integer(name);
  if (step > last) throw past_the_end(r, what + " " + std::to_string(step), key, last);
  return step;
}

}  // namespace parasol::io
