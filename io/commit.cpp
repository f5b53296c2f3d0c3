#include "io/commit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

#include "kernels/error.hpp"
#include "kernels/printable.hpp"

namespace parasol::io {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Temporaries to delete on a signal. A signal handler may call only async-signal-safe functions,
// so the live paths sit in a fixed table of NUL-terminated buffers that it can walk and unlink()
// without allocating or locking. The mutex orders threads registering at once; the handler never
// takes it.

// A batch system's ways of ending a job: scancel and timeouts (SIGTERM), Ctrl-C (SIGINT), a
// closed session (SIGHUP), and SIGUSR1, which Slurm's --signal sends ahead of a time limit and
// whose default action also ends the process.
constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};
static_assert(std::atomic<LastWords>::is_always_lock_free, "the signal handler reads it");

constexpr std::size_t kMaxTemporaries = 32;  // generous: a run holds a result and its sidecars
constexpr std::size_t kMaxPathBytes = 4096;  // PATH_MAX on Linux

struct TemporarySlot {
  std::atomic<bool> live{false};
  char path[kMaxPathBytes];
};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads these flags");

TemporarySlot temporary_slots[kMaxTemporaries];
std::mutex temporary_slots_mutex;

void register_temporary(const fs::path& path) {
  const std::string& text = path.native();
  if (text.size() >= kMaxPathBytes)
    throw Error(printable(text) + ": path is too long for the table of temporary files");
  const std::lock_guard<std::mutex> lock(temporary_slots_mutex);
  for (TemporarySlot& slot : temporary_slots) {
    if (slot.live.load(std::memory_order_relaxed)) continue;
    std::memcpy(slot.path, text.c_str(), text.size() + 1);
    slot.live.store(true, std::memory_order_release);  // the handler sees a complete path
    return;
  }
  throw Error(printable(text) + ": more than " + std::to_string(kMaxTemporaries) +
              " output files are open at once");
}

void deregister_temporary(const fs::path& path) noexcept {
  const std::lock_guard<std::mutex> lock(temporary_slots_mutex);
  for (TemporarySlot& slot : temporary_slots) {
    if (slot.live.load(std::memory_order_relaxed) && std::strcmp(slot.path, path.c_str()) == 0) {
      slot.live.store(false, std::memory_order_release);
      return;
    }
  }
}

// Whether any output set of this process was put in place: the last words a signal prints say it.
std::atomic<bool> anything_committed{false};
std::atomic<LastWords> last_words{nullptr};

void remove_temporaries_and_reraise(int signal_number) {
  for (TemporarySlot& slot : temporary_slots)
    if (slot.live.load(std::memory_order_acquire)) unlink(slot.path);
  // Said once the temporaries are gone, so "nothing written" is already true when it is read.
  if (const LastWords say = last_words.load()) say(signal_number, anything_committed.load());
  // With the default action back, the re-raised signal (blocked until this handler returns)
  // ends the process the way the signal would have, so the parent sees the real cause.
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, nullptr);
  raise(signal_number);
}

// ---------------------------------------------------------------------------------------------
// Temporary names: ".out.h5.tmp-HASH-PID-N", hidden, beside the final file so that the rename
// stays within one file system. HASH (of the host name) and the process id say whose it is: a
// later run on the same host removes those whose process has ended (a SIGKILL, a power cut of a
// node), and leaves alone those of live processes and of other hosts sharing the folder. A hash,
// not the host name itself, keeps the overhead to 30 bytes, so any legal output name has a legal
// temporary name beside it.

// FNV-1a, 32 bits, as 8 hex digits: stable across builds and hosts, unlike std::hash.
std::string short_hash(std::string_view text) {
  std::uint32_t h = 2166136261u;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", h);
  return hex;
}

std::string host_hash() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return short_hash("host");
  return short_hash(name);
}

}  // namespace

std::string temporary_prefix(const fs::path& file_name) {
  static const std::string host = host_hash();
  // What follows NAME: ".tmp-" HASH "-" PID (at most 10 digits) "-" N (at most 10), and the dot
  // before it.
  constexpr std::size_t kTail = 1 + 5 + 8 + 1 + 10 + 1 + 10;
  constexpr std::size_t kNameMax = 255;
  std::string name = file_name.string();
  if (name.size() + kTail > kNameMax) {
    const std::string whole = short_hash(name);
    name = name.substr(0, kNameMax - kTail - whole.size() - 1) + "~" + whole;
  }
  return "." + name + ".tmp-" + host + "-";
}

namespace {

fs::path fresh_temporary(const fs::path& folder, const fs::path& file_name) {
  static std::atomic<unsigned> counter{0};
  const std::string stem = temporary_prefix(file_name) + std::to_string(getpid()) + "-";
  fs::path candidate;
  std::error_code ec;
  for (int attempt = 0; attempt < 100; ++attempt) {
    candidate = fs::absolute(folder) / (stem + std::to_string(counter.fetch_add(1)));
    if (!fs::exists(fs::symlink_status(candidate, ec))) break;
  }
  return candidate;
}

// The process id in "PID-N" (what follows the prefix), or 0 when the rest is not of that form.
pid_t owner_of(const std::string& rest) {
  const std::size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == rest.size()) return 0;
  const auto digits = [](const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string pid = rest.substr(0, dash);
  if (!digits(pid) || !digits(rest.substr(dash + 1)) || pid.size() > 9) return 0;
  return static_cast<pid_t>(std::stol(pid));
}

void remove_temporaries_of_ended_runs(const fs::path& folder, const fs::path& file_name) {
  const std::string prefix = temporary_prefix(file_name);
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const pid_t pid = owner_of(name.substr(prefix.size()));
    if (pid <= 0 || pid == getpid()) continue;
    // ESRCH only: EPERM means a live process of another user.
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (unlink(it->path().c_str()) == 0)
      std::cerr << "parasol: removed " << printable(name) << " left by an earlier run that ended (process "
                << pid << ")\n";
  }
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Puts `temporary` at `path` only if nothing is there, atomically: of two runs committing to one
// path, one wins and the other is told. Returns false when something was there.
bool place_new(const fs::path& temporary, const fs::path& path) {
  if (renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0)
    return true;
  if (errno == EEXIST) return false;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
    throw Error(printable(path.string()) + ": renaming " + printable(temporary.string()) + " into place failed: " +
                std::strerror(errno));
  // A file system without RENAME_NOREPLACE (older NFS, some FUSE ones): link() refuses an
  // existing name just as atomically.
  if (link(temporary.c_str(), path.c_str()) == 0) {
    unlink(temporary.c_str());
    return true;
  }
  if (errno == EEXIST) return false;
  if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP)
    throw Error(printable(path.string()) + ": linking " + printable(temporary.string()) + " into place failed: " +
                std::strerror(errno));
  // Nor hard links (vfat, some object stores): a check and a rename, which a race can slip between.
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) return false;
  if (rename(temporary.c_str(), path.c_str()) != 0)
    throw Error(printable(path.string()) + ": renaming " + printable(temporary.string()) + " into place failed: " +
                std::strerror(errno));
  return true;
}

void write_whole(const fs::path& temporary, const fs::path& path, const std::string& contents) {
  const std::string shown = printable(path.string());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    throw Error(shown + ": creating " + printable(temporary.string()) + " failed: " + std::strerror(errno));
  const char* next = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t written = write(fd, next, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      const int error = written < 0 ? errno : ENOSPC;
      close(fd);
      throw Error(shown + ": writing " + printable(temporary.string()) + " failed: " + std::strerror(error));
    }
    next += written;
    left -= static_cast<std::size_t>(written);
  }
  // NFS reports a full disk only here, when the written pages go out.
  if (close(fd) != 0)
    throw Error(shown + ": closing " + printable(temporary.string()) + " failed: " + std::strerror(errno));
}

}  // namespace

std::string not_a_regular_file(const fs::path& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return kNoSuchFile;
    if (errno == ELOOP) return "is a loop of symbolic links";
    return std::string("cannot be examined: ") + std::strerror(errno);
  }
  return S_ISREG(st.st_mode) ? "" : std::string("is ") + kind_of(st.st_mode);
}

namespace {

struct InputFile {
  std::string key;
  fs::path path;
};
std::vector<InputFile> input_files;
std::mutex input_files_mutex;

// The recorded input that `output` is (after symlinks and hard links), if any.
std::optional<InputFile> input_at(const fs::path& output) {
  struct stat out {};
  if (stat(output.c_str(), &out) != 0) return std::nullopt;
  const std::lock_guard<std::mutex> lock(input_files_mutex);
  for (const InputFile& input : input_files) {
    struct stat in {};
    if (stat(input.path.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return input;
  }
  return std::nullopt;
}

}  // namespace

void note_input_file(std::string key, const fs::path& path) {
  const std::lock_guard<std::mutex> lock(input_files_mutex);
  input_files.push_back({std::move(key), path});
}

void check_output_path(const fs::path& path, bool force) {
  const std::string shown = path.string();
  if (path.empty()) throw InputError("output", "", "the path is empty; expected a file name");
  if (!path.has_filename()) throw InputError(shown, "", "expected a file name for the output");
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw InputError(shown, "", "folder " + printable(folder.string()) + " does not exist");
  struct stat target {};
  if (stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode))
    throw InputError(shown, "", std::string("is ") + kind_of(target.st_mode) +
                                    "; expected a regular file to write the result to");
  // A name the folder cannot hold would fail only at the rename, after all the computing.
  const long name_max = pathconf(folder.c_str(), _PC_NAME_MAX);
  const std::size_t name_bytes = path.filename().native().size();
  if (name_max > 0 && name_bytes > static_cast<std::size_t>(name_max))
    throw InputError(shown, "", "the name is " + std::to_string(name_bytes) + " bytes; at most " +
                                    std::to_string(name_max) + " fit in a folder here");
  if (const std::optional<InputFile> input = input_at(path))
    throw InputError(shown, "",
                     "is " + (input->key.empty() ? std::string("the parameter file")
                                                 : "the file " + input->key + " names (" +
                                                       printable(input->path.string()) + ")") +
                         ", which this run reads; an output never replaces an input, --force or "
                         "not");
  if (access(folder.c_str(), W_OK) != 0)
    throw InputError(shown, "", "folder " + printable(folder.string()) + " is not writable");
  struct stat link {};
  if (!force && lstat(path.c_str(), &link) == 0) throw InputError(shown, "", "exists (use --force)");
}

OutputSet::OutputSet(bool force) : force_(force) {}

OutputSet::OutputSet(OutputSet&& other) noexcept
    : entries_(std::move(other.entries_)),
      force_(other.force_),
      finished_(std::exchange(other.finished_, true)) {  // the moved-from owns nothing
  other.entries_.clear();
}

OutputSet::~OutputSet() { abandon(); }

bool OutputSet::contains(const fs::path& path) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.path.lexically_normal() == path.lexically_normal();
  });
}

fs::path OutputSet::add(const fs::path& path) {
  if (finished_) throw Error(printable(path.string()) + ": added to an output set after its commit");
  if (contains(path)) throw Error(printable(path.string()) + ": written twice by one run");
  check_output_path(path, force_);
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  remove_temporaries_of_ended_runs(folder, path.filename());
  const fs::path temporary = fresh_temporary(folder, path.filename());
  // Registered before it exists, so there is no moment when a signal would leave it behind.
  register_temporary(temporary);
  entries_.push_back({path, temporary});
  return temporary;
}

void OutputSet::add_text(const fs::path& path, const std::string& contents) {
  const fs::path temporary = add(path);
  write_whole(temporary, path, contents);
}

void OutputSet::commit(const std::vector<fs::path>& stale) {
  if (finished_) throw Error("an output set committed twice or after a failure");
  std::size_t placed = 0;
  try {
    for (; placed < entries_.size(); ++placed) {
      const Entry& e = entries_[placed];
      if (force_) {
        if (rename(e.temporary.c_str(), e.path.c_str()) != 0)
          throw Error(printable(e.path.string()) + ": renaming " + printable(e.temporary.string()) +
                      " into place failed: " + std::strerror(errno));
      } else if (!place_new(e.temporary, e.path)) {
        throw InputError(e.path.string(), "", "exists (use --force)");
      }
    }
    if (force_) {
      for (const fs::path& old : stale) {
        if (contains(old)) continue;
        struct stat st {};
        if (lstat(old.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) continue;
        if (unlink(old.c_str()) != 0 && errno != ENOENT)
          throw Error(printable(old.string()) + ": removing this stale sidecar of an earlier result failed: " +
                      std::strerror(errno));
      }
    }
  } catch (...) {
    // What this set already put in place goes too: nothing of a failed run remains.
    for (std::size_t i = 0; i < placed; ++i) unlink(entries_[i].path.c_str());
    abandon();
    throw;
  }
  anything_committed.store(true);
  for (const Entry& e : entries_) deregister_temporary(e.temporary);
  finished_ = true;
}

void OutputSet::abandon() noexcept {
  if (finished_) return;
  for (const Entry& e : entries_) {
    unlink(e.temporary.c_str());
    // Deregistered only once it is gone: a signal in between finds nothing left to delete.
    deregister_temporary(e.temporary);
  }
  finished_ = true;
}

void write_file_atomically(const fs::path& path, const std::string& contents) {
  OutputSet set(/*force=*/true);
  set.add_text(path, contents);
  set.commit();
}

void remove_temporaries_on_signal(LastWords say) {
  last_words.store(say);
  for (const int signal_number : kEndingSignals) {
    struct sigaction previous {};
    if (sigaction(signal_number, nullptr, &previous) != 0)
      throw Error(std::string("sigaction: ") + std::strerror(errno));
    // A signal the process was started ignoring (nohup's SIGHUP, a background job's SIGINT)
    // stays ignored: the caller chose to outlive it.
    if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&action.sa_mask);
    // A second signal during the cleanup waits, so the cleanup is not run twice at once.
    for (const int other : kEndingSignals) sigaddset(&action.sa_mask, other);
    if (sigaction(signal_number, &action, nullptr) != 0)
      throw Error(std::string("sigaction: ") + std::strerror(errno));
  }
}

}  // namespace parasol::io
