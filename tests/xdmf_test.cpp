#include "io/xdmf.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <vector>

#include "kernels/error.hpp"

namespace parasol::io {
namespace {

// Enough of XML to catch a broken writer without a parser dependency: every tag closes in order,
// attribute values are quoted, and no bare '&' or '<' appears in text.
bool well_formed(const std::string& xml, std::string& why) {
  std::vector<std::string> open;
  std::size_t i = 0;
  while (i < xml.size()) {
    if (xml[i] != '<') {
      if (xml[i] == '&' && xml.compare(i, 5, "&amp;") != 0 && xml.compare(i, 4, "&lt;") != 0 &&
          xml.compare(i, 4, "&gt;") != 0 && xml.compare(i, 6, "&quot;") != 0 &&
          xml.compare(i, 6, "&apos;") != 0) {
        why = "bare & at " + std::to_string(i);
        return false;
      }
      ++i;
      continue;
    }
    // Find the tag's end, skipping '>' inside quoted attribute values.
    std::size_t end = i + 1;
    char quote = 0;
    for (; end < xml.size(); ++end) {
      if (quote != 0) {
        if (xml[end] == quote) quote = 0;
        else if (xml[end] == '<') {
          why = "'<' inside an attribute value at " + std::to_string(end);
          return false;
        }
      } else if (xml[end] == '"' || xml[end] == '\'') {
        quote = xml[end];
      } else if (xml[end] == '>') {
        break;
      } else if (xml[end] == '<') {
        why = "'<' inside a tag at " + std::to_string(end);
        return false;
      }
    }
    if (end == xml.size()) {
      why = "unterminated tag at " + std::to_string(i);
      return false;
    }
    const std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty()) {
      why = "empty tag";
      return false;
    }
    if (tag.front() == '?' || tag.front() == '!') continue;  // declaration, doctype, comment
    const bool closing = tag.front() == '/';
    const bool self_closing = tag.back() == '/';
    const std::string body = tag.substr(closing ? 1 : 0);
    const std::string name = body.substr(0, body.find_first_of(" \t\n/"));
    if (closing) {
      if (open.empty() || open.back() != name) {
        why = "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
        return false;
      }
      open.pop_back();
    } else if (!self_closing) {
      open.push_back(name);
    }
  }
  if (!open.empty()) {
    why = "<" + open.back() + "> never closed";
    return false;
  }
  return true;
}

// The text between <DataItem Name="NAME" ...> and </DataItem>.
std::string data_item(const std::string& xml, const std::string& name) {
  const std::regex item("<DataItem Name=\"" + name + "\"[^>]*>([^<]*)</DataItem>");
  std::smatch match;
  return std::regex_search(xml, match, item) ? match[1].str() : "(no " + name + " item)";
}

std::vector<double> numbers(const std::string& text) {
  std::vector<double> values;
  const char* next = text.c_str();
  char* end = nullptr;
  for (double v = std::strtod(next, &end); end != next; v = std::strtod(next, &end)) {
    values.push_back(v);
    next = end;
  }
  return values;
}

UniformGrid3 test_grid() {
  UniformGrid3 grid;
  grid.points = {33, 17, 9};          // nx, ny, nz: all different, so the order shows
  grid.origin = {-1.0, 0.5, 2.0};     // x, y, z
  grid.spacing = {0.1, 1.0 / 3.0, 0.25};
  return grid;
}

TEST(Xdmf, DimensionsAreSlowestFirst) {
  const std::string xml = xdmf_text("out.h5", test_grid(), {"/fields/u", "u", 4});
  EXPECT_NE(xml.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"9 17 33\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("Precision=\"4\" Dimensions=\"9 17 33\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("33 17 9"), std::string::npos) << xml;
}

TEST(Xdmf, ReferencesTheDatasetAndItsPrecision) {
  const std::string single = xdmf_text("file.h5", test_grid(), {"/fields/u", "u", 4});
  EXPECT_NE(single.find(">file.h5:/fields/u</DataItem>"), std::string::npos) << single;
  EXPECT_NE(single.find("Format=\"HDF\" NumberType=\"Float\" Precision=\"4\""), std::string::npos)
      << single;
  EXPECT_NE(single.find("<Attribute Name=\"u\" AttributeType=\"Scalar\" Center=\"Node\">"),
            std::string::npos)
      << single;

  const std::string twice = xdmf_text("file.h5", test_grid(), {"/fields/u", "u", 8});
  EXPECT_NE(twice.find("Format=\"HDF\" NumberType=\"Float\" Precision=\"8\""), std::string::npos)
      << twice;
  EXPECT_EQ(twice.find("Format=\"HDF\" NumberType=\"Float\" Precision=\"4\""), std::string::npos)
      << twice;
}

TEST(Xdmf, OriginAndSpacingAreZyxAndExact) {
  const UniformGrid3 grid = test_grid();
  const std::string xml = xdmf_text("out.h5", grid, {"/fields/u", "u", 4});
  EXPECT_NE(xml.find("GeometryType=\"ORIGIN_DXDYDZ\""), std::string::npos) << xml;
  EXPECT_EQ(numbers(data_item(xml, "Origin")), (std::vector<double>{2.0, 0.5, -1.0}));
  // 1/3 needs 17 digits to come back as the same double; 0.1 and 0.25 must come back too.
  EXPECT_EQ(numbers(data_item(xml, "Spacing")), (std::vector<double>{0.25, 1.0 / 3.0, 0.1}));
  EXPECT_EQ(data_item(xml, "Spacing"), "0.25 0.33333333333333331 0.1");  // short where it can be
}

TEST(Xdmf, IsWellFormedXml) {
  std::string why;
  const std::string xml = xdmf_text("out.h5", test_grid(), {"/fields/u", "u", 8});
  EXPECT_TRUE(well_formed(xml, why)) << why << "\n" << xml;
  EXPECT_EQ(xml.rfind("<?xml", 0), 0u);
  EXPECT_NE(xml.find("<Xdmf Version=\"3.0\""), std::string::npos);
}

TEST(Xdmf, MarkupInNamesIsEscaped) {
  std::string why;
  const std::string xml =
      xdmf_text("a&b<c>.h5", test_grid(), {"/fields/\"q\"", "T & <p>", 4});
  EXPECT_TRUE(well_formed(xml, why)) << why << "\n" << xml;
  EXPECT_NE(xml.find("a&amp;b&lt;c&gt;.h5:/fields/&quot;q&quot;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("Name=\"T &amp; &lt;p&gt;\""), std::string::npos) << xml;
}

TEST(Xdmf, TheCheckerCatchesBrokenXml) {
  std::string why;
  EXPECT_FALSE(well_formed("<a><b></a></b>", why));
  EXPECT_FALSE(well_formed("<a>", why));
  EXPECT_FALSE(well_formed("<a>x & y</a>", why));
  EXPECT_TRUE(well_formed("<?xml version=\"1.0\" ?><a x=\"1>0\"><b/></a>", why)) << why;
}

TEST(Xdmf, RejectsImpossibleFields) {
  EXPECT_THROW(xdmf_text("out.h5", test_grid(), {"/fields/u", "u", 2}), Error);
  UniformGrid3 flat = test_grid();
  flat.points[1] = 0;
  EXPECT_THROW(xdmf_text("out.h5", flat, {"/fields/u", "u", 4}), Error);
}

TEST(Xdmf, SidecarPathReplacesTheExtension) {
  EXPECT_EQ(xdmf_path_for("a/b/out.h5"), std::filesystem::path("a/b/out.xmf"));
  EXPECT_EQ(xdmf_path_for("out.h5"), std::filesystem::path("out.xmf"));
  EXPECT_EQ(xdmf_path_for("run.1/out"), std::filesystem::path("run.1/out.xmf"));
  EXPECT_EQ(xdmf_path_for("/abs/run.hdf5"), std::filesystem::path("/abs/run.xmf"));
}

}  // namespace
}  // namespace parasol::io
