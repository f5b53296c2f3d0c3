// Reads a solver's declared keys (kernels/declaration.hpp) from a parameter file: each through the
// ParamTable's checked door, with its default off a default-made Params, so that a key is read,
// checked, documented and listed from one declaration.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "io/param_table.hpp"
#include "kernels/declaration.hpp"

namespace parasol::io {

// One declared key's value from `table` (its default where the file has none; an InputError with
// the key's source where it is required and missing, or of the wrong type). A file key's relative
// name is taken from the parameter file's folder.
KeyValue read_value(ParamTable& table, const KeyInfo& key, const std::optional<KeyValue>& fallback,
                    const std::filesystem::path& params_path);

// What leaves the declared key `k` unread: the key its condition names (`problem.kind` of
// "problem.kind = \"ar1\"") at the value it was read with, or, when that key was not read
// either, what left that one unread; the condition itself where it names no key read as a name.
template <class P>
std::string unread_because(const ParamTable& table, const Keys<P>& keys, const P& p,
                           const Key<P>& k) {
  const std::string& when = k.info.read_when;
  const std::string by = when.substr(0, when.find(" = "));
  for (const Key<P>& other : keys)
    if (other.info.key == by && other.read_if && !other.read_if(p))
      return unread_because(table, keys, p, other);
  const auto used = table.resolved().find(by);
  const std::string* value =
      used == table.resolved().end() ? nullptr : std::get_if<std::string>(&used->second);
  return value != nullptr ? by + " = \"" + *value + "\"" : "it is read only with " + when;
}

// Every key of `keys`, in order, into a Params made with its defaults. A key given as "auto"
// (where the declaration allows it) leaves its field at the default and is added to `automatic`.
// A key not read under the keys before it (only_if) that the file or the command line sets anyway
// is refused, naming the value that leaves it unread ("not read when problem.kind = \"ar1\""):
// a value the user meant is never dropped in silence, the same way in every solver. An optional()
// key the file does not set is made known and left at its field's value.
template <class P>
P read_keys(ParamTable& table, const Keys<P>& keys, const std::filesystem::path& params_path,
            std::vector<std::string>* automatic = nullptr) {
  P p{};
  for (const Key<P>& k : keys) {
    const std::string& key = k.info.key;
    if (k.read_if && !k.read_if(p)) {
      table.skip(key);  // known all the same: a misspelling of it is pointed here
      continue;
    }
    if (k.may_be_absent && !table.has(key)) {
      table.skip(key);
      continue;
    }
    const KeyValue value = read_value(table, k.info, k.fallback(p), params_path);
    if (k.info.automatic && std::get<std::string>(value) == "auto") {
      if (automatic != nullptr) automatic->push_back(key);
      continue;
    }
    try {
      k.set(p, value);
    } catch (const InputError& e) {
      throw InputError(table.source_of(key), key,
                       e.expected() + (k.info.automatic ? ", or \"auto\"" : ""));
    }
  }
  for (const Key<P>& k : keys)
    if (k.read_if && !k.read_if(p) && table.has(k.info.key))
      throw InputError(table.source_of(k.info.key), k.info.key,
                       "not read when " + unread_because(table, keys, p, k));
  return p;
}

// The keys of another reading of the same file (a sibling model's: montecarlo's basket beside its
// course model) that this reading did not read: made known, and refused where the file sets them,
// naming the value that leaves them unread, as read_keys refuses its own.
template <class Q>
void refuse_unread(ParamTable& table, const Keys<Q>& others) {
  for (const Key<Q>& k : others) {
    if (k.info.read_when.empty() || table.resolved().count(k.info.key) != 0) continue;
    table.skip(k.info.key);
    if (!table.has(k.info.key)) continue;
    const std::string& when = k.info.read_when;
    const std::string by = when.substr(0, when.find(" = "));
    const auto used = table.resolved().find(by);
    const std::string* value =
        used == table.resolved().end() ? nullptr : std::get_if<std::string>(&used->second);
    throw InputError(table.source_of(k.info.key), k.info.key,
                     "not read when " + (value != nullptr ? by + " = \"" + *value + "\""
                                                          : "it is read only with " + when));
  }
}

// Whether `key` was given as "auto" (read_keys' `automatic`).
inline bool is_automatic(const std::vector<std::string>& automatic, const std::string& key) {
  for (const std::string& k : automatic)
    if (k == key) return true;
  return false;
}

}  // namespace parasol::io
