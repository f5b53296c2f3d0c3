// Text a message quotes (a path, a key, a value), made safe to print on the message's one line
// (defined in error.cpp: InputError passes its file and key through it); and printf's text as a
// std::string.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace parasol {

// `text` with control characters escaped ("\n", "\x1b"), so a name holding a line break cannot
// break the message's one line, and past `most` bytes cut at a character boundary and ended with
// "…", so a 1 MB key is not echoed whole. Every message that quotes a user's text passes it
// through here; InputError does so for its file and key.
std::string printable(std::string_view text, std::size_t most = std::string_view::npos);
inline constexpr std::size_t kQuotedMost = 80;  // keys and values; a path is shown whole

// What printf makes of `args` by `format`, however long.
template <class... Args>
std::string formatted(const char* format, Args... args) {
  const int length = std::snprintf(nullptr, 0, format, args...);
  std::string text(static_cast<std::size_t>(length > 0 ? length : 0), '\0');
  std::snprintf(text.data(), text.size() + 1, format, args...);
  return text;
}

}  // namespace parasol
