// Output files appear whole, at once, or not at all: each is written under a temporary name
// beside its final path and renamed into place when complete; a run that fails, throws or is
// interrupted leaves nothing, and one killed outright leaves temporaries that the next run beside
// them recognises and removes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace parasol::io {

// InputError when `path` cannot be an output: empty, no file name, a folder, a device, FIFO or
// socket (or a symlink to one), one of the run's inputs (note_input_file), force or not; its
// folder missing or not writable; or, without `force`, it exists. Runs before any computing, so a bad output costs nothing.
void check_output_path(const std::filesystem::path& path, bool force);

// Why `path` cannot be read as an input file, judged without opening it (a FIFO would block):
// "" for a regular file (after symlinks); else "is a folder", "is a FIFO", "is a device", "is a
// socket", "is a loop of symbolic links", kNoSuchFile, or the system's words.
std::string not_a_regular_file(const std::filesystem::path& path);
inline constexpr const char* kNoSuchFile = "does not exist";

// Records that this process reads `path`, named by parameter `key` ("" for the parameter file
// itself). check_output_path refuses, with --force or without, an output that is the same file
// (same device and inode, after symlinks) as any file recorded: a result must never replace
// what it was computed from.
void note_input_file(std::string key, const std::filesystem::path& path);

// Files written as one transaction: a result and its sidecars are checked up front, written to
// temporaries, then all renamed into place; if any step fails, none of them remains.
class OutputSet {
 public:
  explicit OutputSet(bool force);
  OutputSet(OutputSet&&) noexcept;
  OutputSet& operator=(OutputSet&&) = delete;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();  // every temporary not yet renamed into place is removed

  // Checks `path` (check_output_path), removes temporaries beside it that earlier runs on this host
  // left when they ended (one line on stderr each), and returns a fresh temporary name beside it,
  // registered for removal on a signal. The caller creates that file, exclusively. A path added
  // twice is an Error.
  std::filesystem::path add(const std::filesystem::path& path);
  // add(path), and `contents` written whole to its temporary now (a full disk fails here).
  void add_text(const std::filesystem::path& path, const std::string& contents);

  // Renames every temporary into place, all or none. Without force, a path that appeared since
  // add() is kept, even if another run made it a moment ago: InputError "exists (use --force)"
  // and nothing of this set remains. With force, existing files are replaced, and those of
  // `stale` that this set does not write (an earlier result's sidecars) are removed.
  void commit(const std::vector<std::filesystem::path>& stale = {});

  // Removes every temporary now; the set is finished.
  void abandon() noexcept;

  bool contains(const std::filesystem::path& path) const;
  bool force() const { return force_; }

 private:
  struct Entry {
    std::filesystem::path path, temporary;
  };
  std::vector<Entry> entries_;
  bool force_;
  bool finished_ = false;
};

// A text file written whole under a temporary name and renamed into place, replacing what was
// there (a regular file only). Prefer ResultFile::add_sidecar, which commits with the result.
void write_file_atomically(const std::filesystem::path& path, const std::string& contents);

// The start of the hidden temporary names beside `file_name` that this host's runs use:
// ".NAME.tmp-HASH-", HASH eight hex digits of the host name; a process id and a count follow.
// NAME is cut (and a hash of it added) where the whole would pass NAME_MAX.
std::string temporary_prefix(const std::filesystem::path& file_name);

// Called by the signal handler once the temporaries are removed, with the signal and whether
// any output set of this process had been committed; it must be async-signal-safe.
using LastWords = void (*)(int signal_number, bool committed) noexcept;

// Deletes every registered temporary file when the process gets SIGINT, SIGTERM, SIGHUP or
// SIGUSR1, calls `say` (when given), then dies of that signal as it would have: a parent sees
// the signal (a shell: status 128 + its number, 143 for SIGTERM). Installed once by the front end.
void remove_temporaries_on_signal(LastWords say = nullptr);

}  // namespace parasol::io
