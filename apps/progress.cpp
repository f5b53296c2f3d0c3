#include "apps/progress.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>

namespace parasol::app {

namespace {

constexpr double kQuietSeconds = 1.0;  // on a terminal, runs shorter than this draw nothing
// Heartbeats wake at most once a second, so `--progress 0` does not make them spin.
constexpr double kLeastHeartbeat = 1.0;

double interval_s = kDefaultProgressInterval;
bool quiet = false;
std::atomic<bool> speaker{true};  // read by the signal handler
std::atomic<bool> outcome_known{false};  // likewise

// CLOCK_MONOTONIC is async-signal-safe; std::chrono makes no such promise.
std::int64_t now_ns() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

// Set during static initialisation, before main: "after T s" counts from the process's start.
const std::int64_t process_started_ns = now_ns();

// When a progress line or heartbeat was last printed off a terminal, and when a ProgressLine was
// last updated: a heartbeat keeps quiet while a ProgressLine reports, which prints its own lines.
std::atomic<std::int64_t> last_line_ns{0};
std::atomic<std::int64_t> last_update_ns{0};
// A terminal line drawn in place and not yet ended: the signal's line starts on a fresh one.
std::atomic<bool> line_open{false};

// The steps of live ProgressLines, where a signal handler can read them without locking or
// allocating: fixed slots of plain characters and lock-free counters. `current` is the slot last
// updated, the step the run is at. A slot's text is written only while it is not live.
constexpr int kSlots = 16;  // ProgressLines alive at once: one or two in practice
constexpr std::size_t kWhatBytes = 48;
struct Slot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> live{false};
  char what[kWhatBytes] = {};  // the last byte stays NUL, so a read is always terminated
  std::atomic<std::int64_t> done{0}, total{0};
};
static_assert(std::atomic<std::int64_t>::is_always_lock_free, "the signal handler reads these");
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler reads these");
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads these");
Slot slots[kSlots];
std::atomic<int> current{-1};

int claim_slot(const std::string& what) {
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].claimed.exchange(true)) continue;
    Slot& s = slots[i];
    const std::size_t n = std::min(what.size(), kWhatBytes - 1);
    std::memcpy(s.what, what.data(), n);
    s.what[n] = '\0';
    s.done.store(0, std::memory_order_relaxed);
    s.total.store(0, std::memory_order_relaxed);
    s.live.store(true, std::memory_order_release);
    return i;
  }
  return -1;  // too many at once: the signal's line goes without the step
}

void release_slot(int i) {
  if (i < 0) return;
  int was = i;
  current.compare_exchange_strong(was, -1);
  slots[i].live.store(false, std::memory_order_release);
  slots[i].claimed.store(false);
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

// A bounded text built without allocating, for the signal handler.
struct SignalText {
  char text[512];
  std::size_t size = 0;
  void add(const char* s) noexcept {
    while (*s != '\0' && size < sizeof text) text[size++] = *s++;
  }
  void add(std::int64_t value) noexcept {
    char digits[24];
    int n = 0;
    const bool negative = value < 0;
    std::uint64_t v = negative ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    if (negative) add("-");
    while (n > 0 && size < sizeof text) text[size++] = digits[--n];
  }
  // The text onto stderr, as much as write() takes.
  void write_out() const noexcept {
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = write(STDERR_FILENO, text + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }
};

const char* signal_name(int signal_number) noexcept {
  switch (signal_number) {
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    default: return nullptr;
  }
}

}  // namespace

void configure_progress(double interval, bool be_quiet) {
  interval_s = interval;
  quiet = be_quiet;
}

void set_speaker(bool speaks) { speaker.store(speaks); }
bool is_speaker() { return speaker.load(); }

ProgressLine::ProgressLine(std::string what, std::string unit, double units_per_step)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      units_per_step_(units_per_step),
      terminal_(stderr_is_terminal()),
      slot_(claim_slot(what_)) {}

ProgressLine::~ProgressLine() {
  release_slot(slot_);
  if (drawn_) {
    std::fputc('\n', stderr);
    line_open.store(false);
  }
}

void ProgressLine::update(std::int64_t done, std::int64_t total, double seconds,
                          const std::string& detail) {
  if (slot_ >= 0) {
    slots[slot_].done.store(done, std::memory_order_relaxed);
    slots[slot_].total.store(total, std::memory_order_relaxed);
    current.store(slot_);
  }
  last_update_ns.store(now_ns());
  if (quiet || !is_speaker() || done <= 0) return;
  if (terminal_ ? seconds < kQuietSeconds : seconds - printed_at_ < interval_s) return;
  const double steps = static_cast<double>(done);
  const double rate = 1e-9 * units_per_step_ * steps / seconds;
  const double left = seconds * (static_cast<double>(total) - steps) / steps;
  char text[512];
  std::snprintf(text, sizeof text, "  %s %lld/%lld%s%s  %.3g G%s/s  %.1f s, %.1f s left",
                what_.c_str(), static_cast<long long>(done), static_cast<long long>(total),
                detail.empty() ? "" : "  ", detail.c_str(), rate, unit_.c_str(), seconds,
                left > 0 ? left : 0.0);
  if (terminal_) {
    std::fprintf(stderr, "\r%s   ", text);
    std::fflush(stderr);
    drawn_ = true;
    line_open.store(true);
  } else {
    // One whole line per write, so a log shows it the moment it is printed.
    std::fprintf(stderr, "%s\n", text);
    std::fflush(stderr);
    printed_at_ = seconds;
    last_line_ns.store(now_ns());
  }
}

struct Heartbeat::Beat {
  std::string phase;
  std::int64_t began_ns = now_ns();
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread thread;

  void run() {
    const double every = std::max(interval_s, kLeastHeartbeat);
    const auto period = std::chrono::duration<double>(every);
    std::unique_lock<std::mutex> lock(mutex);
    while (!wake.wait_for(lock, period, [&] { return stop; })) {
      const std::int64_t now = now_ns();
      const std::int64_t last = std::max(last_line_ns.load(), last_update_ns.load());
      if (static_cast<double>(now - last) * 1e-9 < every) continue;
      std::fprintf(stderr, "  %s: running for %.0f s\n", phase.c_str(),
                   static_cast<double>(now - began_ns) * 1e-9);
      std::fflush(stderr);
      last_line_ns.store(now);
    }
  }
};

Heartbeat::Heartbeat(std::string phase) : beat_(nullptr) {
  if (quiet || !is_speaker() || stderr_is_terminal()) return;
  beat_ = new Beat;
  beat_->phase = std::move(phase);
  beat_->thread = std::thread([b = beat_] { b->run(); });
}

Heartbeat::~Heartbeat() {
  if (beat_ == nullptr) return;
  {
    const std::lock_guard<std::mutex> lock(beat_->mutex);
    beat_->stop = true;
  }
  beat_->wake.notify_one();
  beat_->thread.join();
  delete beat_;
}

void mark_outcome_known() noexcept { outcome_known.store(true); }

void say_interrupted(int signal_number, bool committed) noexcept {
  if (!speaker.load() || outcome_known.load()) return;
  SignalText t;
  if (line_open.load()) t.add("\n");
  t.add("parasol: interrupted by ");
  if (const char* name = signal_name(signal_number)) {
    t.add(name);
  } else {
    t.add("signal ");
    t.add(std::int64_t{signal_number});
  }
  const int at = current.load();
  if (at >= 0 && slots[at].live.load(std::memory_order_acquire)) {
    const std::int64_t total = slots[at].total.load(std::memory_order_relaxed);
    if (total > 0) {
      t.add(" at ");
      t.add(slots[at].what);
      t.add(" ");
      t.add(slots[at].done.load(std::memory_order_relaxed));
      t.add(" of ");
      t.add(total);
    }
  }
  const std::int64_t tenths = (now_ns() - process_started_ns) / 100000000;
  t.add(" after ");
  t.add(tenths / 10);
  t.add(".");
  t.add(tenths % 10);
  t.add(" s; ");
  t.add(committed ? "its result was written before the signal" : "nothing written");
  t.add("\n");
  t.write_out();
}

namespace {

// The signals a checkpoint answers: a batch system's warnings and ends (Slurm's --signal sends
// SIGUSR1, its time limit SIGTERM) and Ctrl-C. SIGHUP (a closed session) still ends a run.
constexpr int kCheckpointSignals[] = {SIGTERM, SIGINT, SIGUSR1};
std::atomic<int> requested{0};
struct sigaction before[std::size(kCheckpointSignals)];

void ask_for_checkpoint(int signal_number) {
  int none = 0;
  if (requested.compare_exchange_strong(none, signal_number)) {
    if (!speaker.load()) return;
    SignalText t;
    if (line_open.load()) t.add("\n");
    t.add("parasol: ");
    t.add(signal_name(signal_number));
    t.add(": writing a checkpoint at the next safe point, then stopping (again to stop now)\n");
    t.write_out();
    return;
  }
  // The second: what the handler before would have done (remove the temporaries, say so, die
  // of the signal), or the default action.
  for (std::size_t i = 0; i < std::size(kCheckpointSignals); ++i) {
    if (kCheckpointSignals[i] != signal_number) continue;
    const struct sigaction& b = before[i];
    if ((b.sa_flags & SA_SIGINFO) == 0 && b.sa_handler == SIG_IGN) return;
    if ((b.sa_flags & SA_SIGINFO) == 0 && b.sa_handler != SIG_DFL && b.sa_handler != nullptr) {
      b.sa_handler(signal_number);
      return;
    }
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, nullptr);
  raise(signal_number);
}

}  // namespace

CheckpointOnSignal::CheckpointOnSignal() {
  requested.store(0);
  for (std::size_t i = 0; i < std::size(kCheckpointSignals); ++i) {
    struct sigaction action {};
    action.sa_handler = ask_for_checkpoint;
    sigemptyset(&action.sa_mask);
    for (const int other : kCheckpointSignals) sigaddset(&action.sa_mask, other);
    sigaddset(&action.sa_mask, SIGHUP);
    sigaction(kCheckpointSignals[i], &action, &before[i]);
    // A signal the process was started ignoring stays ignored.
    if ((before[i].sa_flags & SA_SIGINFO) == 0 && before[i].sa_handler == SIG_IGN)
      sigaction(kCheckpointSignals[i], &before[i], nullptr);
  }
}

CheckpointOnSignal::~CheckpointOnSignal() {
  for (std::size_t i = 0; i < std::size(kCheckpointSignals); ++i)
    sigaction(kCheckpointSignals[i], &before[i], nullptr);
}

int checkpoint_requested() noexcept { return requested.load(); }

std::string signal_text(int signal_number) {
  if (const char* name = signal_name(signal_number)) return name;
  return "signal " + std::to_string(signal_number);
}

}  // namespace parasol::app
