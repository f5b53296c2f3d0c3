// Enumerations users type by name ("zreg", "device-rng"): one table per enum converts both ways,
// so the names live in one place and a misspelling lists the valid ones.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "kernels/error.hpp"

namespace parasol {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <class E, std::size_t N>
std::string_view lookup_name(const NameTable<E, N>& table, E value) {
  for (const auto& [e, text] : table)
    if (e == value) return text;
  return "?";
}

// Throws InputError ("variant \"zrge\" is not one of \"zmarch\", ...") with no key: the caller
// knows which key the text came from.
template <class E, std::size_t N>
E lookup_value(const NameTable<E, N>& table, std::string_view text, const char* what) {
  std::string valid;
  for (const auto& [e, name_text] : table) {
    if (name_text == text) return e;
    valid += (valid.empty() ? "" : ", ") + ("\"" + std::string(name_text) + "\"");
  }
  throw InputError("", "", std::string(what) + " \"" + std::string(text) + "\" is not one of " +
                               valid);
}

}  // namespace parasol
