// Messages are one line each: the front end prints "parasol: " and the message, and a script or a
// log reader takes the first line for the whole story.
#pragma once

#include <string>
#include <string_view>

namespace parasol::io {

// `text` with every run of line breaks, tabs and other control characters, and the spaces around
// them, made one space; leading and trailing ones dropped. A TOML value quoted back or a library's
// multi-line complaint then fits the message's line.
inline std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool gap = false;
  for (const char c : text) {
    const bool control = static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    if (control || (c == ' ' && gap)) {
      gap = true;
      continue;
    }
    if (gap && !out.empty() && out.back() != ' ') out += ' ';
    gap = false;
    out += c;
  }
  return out;
}

}  // namespace parasol::io
