// Reading atoms: PQR (APBS, PDB2PQR) and XYZ with a charge column. Every malformed line is an
// InputError naming the file and line and quoting what is wrong; nothing is skipped silently.
#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/error.hpp"
#include "solvers/coulomb/coulomb.hpp"

namespace parasol::coulomb {
namespace {

std::vector<std::string> split_fields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> fields;
  std::string field;
  while (in >> field) fields.push_back(field);
  return fields;
}

class Reader {
 public:
  explicit Reader(const std::filesystem::path& file) : file_(file), in_(file) {
    if (!in_) {
      std::error_code ec;
      const bool exists = std::filesystem::exists(file, ec);
      throw InputError(file.string(), "",
                       exists ? "cannot read the atoms file" : "atoms file not found");
    }
  }
  bool next(std::string& line) {
    if (!std::getline(in_, line)) {
      if (in_.bad()) throw InputError(file_.string(), "", "read error in the atoms file");
      return false;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();  // files written on Windows
    ++number_;
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file_.string() + ":" + std::to_string(number_), "", what);
  }
  // A finite number taking up the whole field.
  double to_number(const std::string& field, const char* what) const {
    const char* begin = field.c_str();
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(begin, &end);
    if (end == begin || *end != '\0')
      fail("expected a number for the " + std::string(what) + ", got \"" + field + "\"");
    if (!std::isfinite(x) || errno == ERANGE)
      fail("expected a finite number for the " + std::string(what) + ", got \"" + field + "\"");
    return x;
  }
  Atom atom_from(const std::vector<std::string>& f, std::size_t first) const {
    const double x = to_number(f[first], "x coordinate");
    const double y = to_number(f[first + 1], "y coordinate");
    const double z = to_number(f[first + 2], "z coordinate");
    const double q = to_number(f[first + 3], "charge");
    return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z),
            static_cast<float>(q)};
  }
  int line_number() const { return number_; }

 private:
  std::filesystem::path file_;
  std::ifstream in_;
  int number_ = 0;
};

bool is_record(const std::vector<std::string>& fields, const char* name) {
  return !fields.empty() && fields[0] == name;
}

// ATOM serial name residue [chain] residue_number x y z charge radius: the chain is optional, so
// the numbers are counted from the end.
std::vector<Atom> read_pqr(Reader& in) {
  std::vector<Atom> atoms;
  std::string line;
  while (in.next(line)) {
    const std::vector<std::string> f = split_fields(line);
    if (!is_record(f, "ATOM") && !is_record(f, "HETATM")) continue;  // REMARK, TER, END, ...
    constexpr std::size_t kLeast = 10;  // record serial name residue number x y z q r
    if (f.size() < kLeast)
      in.fail("expected at least " + std::to_string(kLeast) +
              " fields (record, serial, atom, residue, [chain,] residue number, x, y, z, charge, "
              "radius), got " + std::to_string(f.size()) + ": \"" + line + "\"");
    if (f.size() > kLeast + 1)
      in.fail("expected at most " + std::to_string(kLeast + 1) + " fields, got " +
              std::to_string(f.size()) + ": \"" + line + "\"");
    const std::size_t first = f.size() - 5;
    atoms.push_back(in.atom_from(f, first));
    in.to_number(f[first + 4], "radius");
  }
  return atoms;
}

// A count line, a comment line, then exactly `count` lines "element x y z charge".
std::vector<Atom> read_xyz(Reader& in) {
  std::string line;
  std::vector<std::string> f;
  while (f.empty()) {
    if (!in.next(line)) in.fail("expected the number of atoms on the first line; the file is empty");
    f = split_fields(line);
  }
  if (f.size() != 1) in.fail("expected the number of atoms alone on the line, got \"" + line + "\"");
  const char* begin = f[0].c_str();
  char* end = nullptr;
  errno = 0;
  const long long count = std::strtoll(begin, &end, 10);
  if (end == begin || *end != '\0' || errno == ERANGE || count < 0)
    in.fail("expected the number of atoms (an integer >= 0), got \"" + f[0] + "\"");
  if (!in.next(line)) in.fail("expected a comment line after the atom count; the file ends");

  std::vector<Atom> atoms;
  while (in.next(line)) {
    f = split_fields(line);
    if (f.empty()) continue;
    if (static_cast<long long>(atoms.size()) == count)
      in.fail("the first line says " + std::to_string(count) + " atoms, but more follow: \"" +
              line + "\"");
    if (f.size() != 5)
      in.fail("expected 5 fields (element x y z charge), got " + std::to_string(f.size()) +
              ": \"" + line + "\"");
    atoms.push_back(in.atom_from(f, 1));
  }
  if (static_cast<long long>(atoms.size()) != count)
    in.fail("the first line says " + std::to_string(count) + " atoms, but the file has " +
            std::to_string(atoms.size()));
  return atoms;
}

}  // namespace

std::vector<Atom> read_atoms(const std::filesystem::path& file, AtomFormat format) {
  Reader in(file);
  std::vector<Atom> atoms = format == AtomFormat::pqr ? read_pqr(in) : read_xyz(in);
  if (atoms.empty())
    throw InputError(file.string(), "",
                     format == AtomFormat::pqr ? "no ATOM or HETATM records: no atoms"
                                               : "no atoms");
  return atoms;
}

std::optional<AtomFormat> format_from_extension(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".pqr") return AtomFormat::pqr;
  if (ext == ".xyz") return AtomFormat::xyz;
  return std::nullopt;
}

double total_charge(const std::vector<Atom>& atoms) {
  double charge = 0;
  for (const Atom& a : atoms) charge += a.q;
  return charge;
}

Box bounding_box(const std::vector<Atom>& atoms) {
  if (atoms.empty()) throw Error("coulomb: the bounding box of no atoms");
  Box box;
  box.low = box.high = {atoms[0].x, atoms[0].y, atoms[0].z};
  for (const Atom& a : atoms) {
    const std::array<double, 3> r{a.x, a.y, a.z};
    for (int i = 0; i < 3; ++i) {
      box.low[i] = std::min(box.low[i], r[i]);
      box.high[i] = std::max(box.high[i], r[i]);
    }
  }
  return box;
}

}  // namespace parasol::coulomb
