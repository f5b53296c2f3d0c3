// The autotune file: what `parasol sweep --autotune` stores and `method.variant = "auto"` reads.
// Nothing here needs a device: keys are written out as a sweep would make them.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "apps/binding.hpp"
#include "apps/solver_run.hpp"
#include "io/autotune.hpp"
#include "kernels/error.hpp"
#include "kernels/shape.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using io::AutotuneChoice;
using io::AutotuneFile;
using io::AutotuneKey;

AutotuneKey h100_key(std::int64_t n, const std::string& precision = "float") {
  const std::string side = std::to_string(n);
  return {"NVIDIA H100 80GB HBM3", "9.0", "laplace3d", side + "x" + side + "x" + side, precision};
}

AutotuneChoice choice_for(const AutotuneKey& key, const std::string& variant, Shape block) {
  AutotuneChoice c;
  c.key = key;
  c.variant = variant;
  c.axes = {{"block", to_string(block)}};
  c.measured = {{"median_s", 4.104e-4}, {"gpoints_per_s", 327.04}, {"gb_per_s", 2616.3},
                {"percent_of_copy", 88.46}};
  c.timed = 11;
  c.date = "2026-11-21T19:04:05Z";
  c.sweep_file = "/results/laplace3d-512-sweep.h5";
  c.parasol_version = "0.1.0 (f3556ec)";
  return c;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

// The message of the InputError that loading `path` throws; a failure when none is thrown.
std::string load_error(const std::filesystem::path& path) {
  try {
    (void)AutotuneFile::load(path);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "loading " << path << " should have failed";
  return "";
}

using test::contains;

TEST(Autotune, RoundTripKeepsEveryField) {
  test::ScratchDir dir;
  const auto path = dir / "autotune.toml";
  AutotuneFile file = AutotuneFile::load(path);
  // A device name is the driver's to choose: quotes and backslashes must survive.
  AutotuneKey odd = h100_key(33);
  odd.device = "Lab \"GPU\" \\ 2";
  file.put(choice_for(h100_key(512), "zreg", {128, 2, 1}));
  file.put(choice_for(odd, "block3d", {32, 8, 2}));
  file.save();

  const AutotuneFile back = AutotuneFile::load(path);
  ASSERT_EQ(back.choices().size(), 2u);
  const std::optional<AutotuneChoice> c = back.find(h100_key(512));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->key, h100_key(512));
  EXPECT_EQ(c->variant, "zreg");
  EXPECT_EQ(c->axis("block"), "128x2x1");
  EXPECT_FALSE(c->axis("chunk").has_value());
  // Measurements are stored to 4 digits, for people reading the file, in the sweep's order.
  ASSERT_EQ(c->measured.size(), 4u);
  EXPECT_EQ(c->measured[0].first, "median_s");
  EXPECT_DOUBLE_EQ(c->measured[0].second, 4.104e-4);
  EXPECT_EQ(c->measured[1].first, "gpoints_per_s");
  EXPECT_DOUBLE_EQ(c->measured[1].second, 327.0);
  EXPECT_DOUBLE_EQ(c->measured[2].second, 2616.0);
  EXPECT_DOUBLE_EQ(c->measured[3].second, 88.46);
  EXPECT_EQ(c->timed, 11);
  EXPECT_EQ(c->date, "2026-11-21T19:04:05Z");
  EXPECT_EQ(c->sweep_file, "/results/laplace3d-512-sweep.h5");
  EXPECT_EQ(c->parasol_version, "0.1.0 (f3556ec)");
  EXPECT_GT(c->line, 0);  // so a complaint about the choice can name its line

  const std::optional<AutotuneChoice> o = back.find(odd);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->key.device, "Lab \"GPU\" \\ 2");
  EXPECT_EQ(o->variant, "block3d");
  EXPECT_EQ(o->axis("block"), "32x8x2");
}

TEST(Autotune, AnySolversAxesAndProblemClassRoundTrip) {
  test::ScratchDir dir;
  const auto path = dir / "autotune.toml";
  AutotuneFile file = AutotuneFile::load(path);
  AutotuneChoice c;
  c.key = {"NVIDIA H100 80GB HBM3", "9.0", "tridiag", "n=1024,systems=65536", "double"};
  c.variant = "pcr-warp";
  // Axis names a TOML key cannot hold bare are quoted; values keep their order.
  c.axes = {{"threads", "256"}, {"chunk", "8"}, {"odd axis", "a \"b\""}};
  c.measured = {{"median_s", 0.0125}, {"gunknowns_per_s", 5.368709}, {"gb_per_s", NAN}};
  file.put(c);
  AutotuneChoice bare = c;
  bare.key.solver = "recurrence";
  bare.axes.clear();
  bare.measured.clear();
  file.put(bare);
  file.save();

  const AutotuneFile back = AutotuneFile::load(path);
  ASSERT_EQ(back.choices().size(), 2u);
  const std::optional<AutotuneChoice> t = back.find(c.key);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->key.problem, "n=1024,systems=65536");
  EXPECT_EQ(t->axes, c.axes);
  EXPECT_EQ(t->describe(), "pcr-warp, threads 256, chunk 8, odd axis a \"b\"");
  // A measurement that is not a number is left out rather than written as nan.
  ASSERT_EQ(t->measured.size(), 2u);
  EXPECT_DOUBLE_EQ(t->measured[1].second, 5.369);
  const std::optional<AutotuneChoice> r = back.find(bare.key);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->axes.empty());
  EXPECT_TRUE(r->measured.empty());
}

TEST(Autotune, FirstFormatFilesAreStillRead) {
  // What laplace3d's sweeps wrote before every solver could be tuned: grid and block arrays.
  test::ScratchDir dir;
  const auto path = dir / "autotune.toml";
  write_text(path,
             "format = \"parasol-autotune-1\"\n\n[[choice]]\ndevice = \"NVIDIA H100 80GB HBM3\"\n"
             "compute_capability = \"9.0\"\nsolver = \"laplace3d\"\ngrid = [512, 512, 512]\n"
             "precision = \"float\"\nvariant = \"zreg\"\nblock = [128, 2]\n"
             "gpoints_per_s = 327.0\ngb_per_s = 2616.0\npercent_of_copy = 88.5\ntimed = 11\n");
  AutotuneFile file = AutotuneFile::load(path);
  const std::optional<AutotuneChoice> c = file.find(h100_key(512));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->variant, "zreg");
  EXPECT_EQ(c->axis("block"), "128x2x1");
  ASSERT_EQ(c->measured.size(), 3u);
  EXPECT_EQ(c->measured[0].first, "gpoints_per_s");
  EXPECT_EQ(c->timed, 11);
  // Saved again, it is in the present format and means the same.
  file.put(choice_for(h100_key(256), "zmarch", {32, 8, 1}));
  file.save();
  const AutotuneFile back = AutotuneFile::load(path);
  ASSERT_EQ(back.choices().size(), 2u);
  EXPECT_EQ(back.find(h100_key(512))->axis("block"), "128x2x1");
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(contains(text, "format = \"parasol-autotune-2\"")) << text;
  EXPECT_TRUE(contains(text, "problem = \"512x512x512\"")) << text;
}

TEST(Autotune, MergeReplacesTheSameKeyAndKeepsTheOthers) {
  test::ScratchDir dir;
  const auto path = dir / "autotune.toml";
  {
    AutotuneFile file = AutotuneFile::load(path);
    file.put(choice_for(h100_key(256), "zreg", {64, 4, 1}));
    file.put(choice_for(h100_key(512), "zreg", {128, 2, 1}));
    file.put(choice_for(h100_key(512, "double"), "zmarch", {32, 8, 1}));
    file.save();
  }
  // A later sweep, as `parasol sweep --autotune` does it: load, put, save.
  AutotuneFile file = AutotuneFile::load(path);
  file.put(choice_for(h100_key(512), "smem-zreg", {32, 8, 1}));
  file.save();

  const AutotuneFile back = AutotuneFile::load(path);
  ASSERT_EQ(back.choices().size(), 3u);
  // Replaced where it stood, so a file edited by hand keeps its order.
  EXPECT_EQ(back.choices()[1].key, h100_key(512));
  EXPECT_EQ(back.choices()[1].variant, "smem-zreg");  // a name this build need not know
  EXPECT_EQ(back.choices()[1].axis("block"), "32x8x1");
  EXPECT_EQ(back.find(h100_key(256))->variant, "zreg");
  EXPECT_EQ(back.find(h100_key(512, "double"))->variant, "zmarch");
  // Written under a temporary name and renamed: nothing else is left in the folder.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().filename(), "autotune.toml") << "left behind: " << entry.path();
}

TEST(Autotune, LookupMissesWhenAnyPartOfTheKeyDiffers) {
  test::ScratchDir dir;
  AutotuneFile file = AutotuneFile::load(dir / "autotune.toml");
  file.put(choice_for(h100_key(512), "zreg", {128, 2, 1}));
  ASSERT_TRUE(file.find(h100_key(512)).has_value());

  AutotuneKey other = h100_key(512);
  other.device = "NVIDIA H200";
  EXPECT_FALSE(file.find(other).has_value()) << "device";
  other = h100_key(512);
  other.compute_capability = "9.1";
  EXPECT_FALSE(file.find(other).has_value()) << "compute capability";
  other = h100_key(512);
  other.solver = "coulomb";
  EXPECT_FALSE(file.find(other).has_value()) << "solver";
  other = h100_key(512);
  other.problem = "512x512x511";
  EXPECT_FALSE(file.find(other).has_value()) << "problem";
  EXPECT_FALSE(file.find(h100_key(512, "double")).has_value()) << "precision";
}

TEST(Autotune, MissingFileHoldsNoChoicesAndSaveMakesItsFolder) {
  test::ScratchDir dir;
  const auto path = dir / "cache" / "parasol" / "autotune.toml";
  AutotuneFile file = AutotuneFile::load(path);
  EXPECT_TRUE(file.choices().empty());
  EXPECT_FALSE(file.find(h100_key(512)).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir / "cache")) << "loading must not create anything";
  file.put(choice_for(h100_key(512), "zreg", {128, 2, 1}));
  file.save();
  EXPECT_TRUE(AutotuneFile::load(path).find(h100_key(512)).has_value());
}

TEST(Autotune, CorruptFileIsAnInputErrorNamingTheFile) {
  test::ScratchDir dir;
  const auto path = dir / "autotune.toml";

  write_text(path, "format = \"parasol-autotune-1\"\n[[choice]\ndevice = \"x\"\n");
  std::string message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ":2: not a valid autotune file: TOML syntax error"))
      << message;
  EXPECT_TRUE(contains(message, "parasol sweep --autotune")) << message;  // how to recover

  write_text(path, "[[choice]]\nvariant = \"zreg\"\n");
  message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ": format: expected \"parasol-autotune-2\""))
      << message;

  write_text(path,
             "format = \"parasol-autotune-2\"\n\n[[choice]]\ndevice = \"d\"\n"
             "compute_capability = \"9.0\"\nsolver = \"tridiag\"\nproblem = \"n=8\"\n"
             "precision = \"float\"\nvariant = \"thomas\"\naxes = { threads = 256 }\n");
  message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ":10: choice.axes: expected a table of strings"))
      << message;

  write_text(path,
             "format = \"parasol-autotune-2\"\n\n[[choice]]\ndevice = \"d\"\n"
             "compute_capability = \"9.0\"\nsolver = \"tridiag\"\n"
             "precision = \"float\"\nvariant = \"thomas\"\n");
  message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ":3: choice.problem: missing; expected a string"))
      << message;

  write_text(path, "format = \"parasol-autotune-1\"\nchoice = 3\n");
  message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ":2: choice: expected [[choice]] tables"))
      << message;

  write_text(path,
             "format = \"parasol-autotune-1\"\n\n[[choice]]\ndevice = \"NVIDIA H100 80GB HBM3\"\n"
             "compute_capability = \"9.0\"\nsolver = \"laplace3d\"\ngrid = [512, 512, 512]\n"
             "precision = \"float\"\nvariant = \"zreg\"\nblock = [128, 0, 1]\n");
  message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ":10: choice.block: expected a block shape"))
      << message;

  write_text(path,
             "format = \"parasol-autotune-1\"\n\n[[choice]]\ndevice = \"NVIDIA H100 80GB HBM3\"\n"
             "compute_capability = \"9.0\"\nsolver = \"laplace3d\"\ngrid = [512, 512, 512]\n"
             "precision = \"float\"\nblock = [128, 2, 1]\n");
  message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ":3: choice.variant: missing; expected a string"))
      << message;

  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  message = load_error(path);
  EXPECT_TRUE(contains(message, path.string() + ": the autotune file is a folder")) << message;
}

// Sets an environment variable for one scope and puts back what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Autotune, PathFromTheOptionTheEnvironmentOrTheCache) {
  const ScopedEnv file("PARASOL_AUTOTUNE_FILE", nullptr);
  const ScopedEnv cache("XDG_CACHE_HOME", "/xdg/cache");
  const ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(io::autotune_path("given.toml"), "given.toml");
  EXPECT_EQ(io::autotune_path(""), "/xdg/cache/parasol/autotune.toml");
  {
    const ScopedEnv set("PARASOL_AUTOTUNE_FILE", "/env/autotune.toml");
    EXPECT_EQ(io::autotune_path(""), "/env/autotune.toml");
    EXPECT_EQ(io::autotune_path("given.toml"), "given.toml");
  }
  {
    // The XDG base-directory specification: a relative XDG_CACHE_HOME is ignored.
    const ScopedEnv relative("XDG_CACHE_HOME", "relative/cache");
    EXPECT_EQ(io::autotune_path(""), "/home/someone/.cache/parasol/autotune.toml");
  }
  {
    const ScopedEnv unset_cache("XDG_CACHE_HOME", nullptr);
    EXPECT_EQ(io::autotune_path(""), "/home/someone/.cache/parasol/autotune.toml");
    const ScopedEnv unset_home("HOME", nullptr);
    try {
      (void)io::autotune_path("");
      ADD_FAILURE() << "with no variable to go by, the path must be asked for";
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), "--autotune-file");
    }
  }
}

// The table shipped with Parasol: found beside the running executable as in an installed prefix
// (the build tree keeps a copy there), or named by $PARASOL_SHIPPED_AUTOTUNE; a valid autotune file.
TEST(Autotune, TheShippedTableIsFoundBesideTheExecutableOrNamed) {
  {
    const ScopedEnv unset("PARASOL_SHIPPED_AUTOTUNE", nullptr);
    const std::filesystem::path shipped = io::shipped_autotune_path();
    ASSERT_FALSE(shipped.empty()) << "the build tree's share/parasol/autotune.toml";
    EXPECT_EQ(shipped.filename(), "autotune.toml");
    EXPECT_EQ(shipped.parent_path().filename(), "parasol");
    EXPECT_EQ(shipped.parent_path().parent_path().filename(), "share");
    const AutotuneFile table = AutotuneFile::load(shipped);  // throws when not valid
    for (const AutotuneChoice& c : table.choices()) {
      EXPECT_FALSE(c.key.device.empty()) << "line " << c.line;
      EXPECT_FALSE(c.variant.empty()) << "line " << c.line;
      EXPECT_FALSE(c.date.empty()) << "line " << c.line << ": a shipped choice says when";
    }
  }
  {
    const ScopedEnv named("PARASOL_SHIPPED_AUTOTUNE", "/somewhere/table.toml");
    EXPECT_EQ(io::shipped_autotune_path(), "/somewhere/table.toml");
  }
  {
    const ScopedEnv none("PARASOL_SHIPPED_AUTOTUNE", "");
    EXPECT_TRUE(io::shipped_autotune_path().empty());
  }
}

// method.variant = "auto" looks in the user's file, then in the shipped table; the user's choice
// wins, a shipped one says so (/method@chosen_by "shipped"), and neither is the defaults.
TEST(Autotune, AutoTakesTheUsersChoiceElseTheShippedOne) {
  test::ScratchDir dir;
  const std::filesystem::path mine = dir / "mine.toml", shipped = dir / "shipped.toml";
  AutotuneFile table = AutotuneFile::load(shipped);
  table.put(choice_for(h100_key(512), "zreg-vec", Shape{32, 4, 1}));
  table.put(choice_for(h100_key(256), "zreg", Shape{64, 4, 1}));
  table.save();
  AutotuneFile users = AutotuneFile::load(mine);
  users.put(choice_for(h100_key(256), "block3d", Shape{32, 8, 2}));
  users.save();
  const ScopedEnv named("PARASOL_SHIPPED_AUTOTUNE", shipped.c_str());

  const app::AutoChoice from_shipped = app::look_up_choice(mine, h100_key(512), "zreg 64x4x1");
  ASSERT_TRUE(from_shipped.choice);
  EXPECT_EQ(from_shipped.choice->variant, "zreg-vec");
  EXPECT_TRUE(from_shipped.shipped);
  EXPECT_EQ(from_shipped.chosen_by(), "shipped");
  EXPECT_EQ(from_shipped.file, shipped);
  EXPECT_EQ(from_shipped.described(), " (auto, shipped: " + shipped.string() + ")");

  const app::AutoChoice from_mine = app::look_up_choice(mine, h100_key(256), "zreg 64x4x1");
  ASSERT_TRUE(from_mine.choice);
  EXPECT_EQ(from_mine.choice->variant, "block3d");
  EXPECT_FALSE(from_mine.shipped);
  EXPECT_EQ(from_mine.chosen_by(), "autotune");
  EXPECT_EQ(from_mine.file, mine);

  testing::internal::CaptureStderr();
  const app::AutoChoice none = app::look_up_choice(mine, h100_key(128), "zreg 64x4x1");
  const std::string note = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(none.choice);
  EXPECT_EQ(none.chosen_by(), "default");
  EXPECT_TRUE(contains(note, "no choice for laplace3d 128x128x128 float")) << note;
  EXPECT_TRUE(contains(note, "running zreg 64x4x1")) << note;
  EXPECT_EQ(std::count(note.begin(), note.end(), '\n'), 1) << note;

  const ScopedEnv no_table("PARASOL_SHIPPED_AUTOTUNE", "");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(app::look_up_choice(mine, h100_key(512), "zreg 64x4x1").choice);
  (void)testing::internal::GetCapturedStderr();
}

// A made-up solver whose stored choices set whole numbers and block shapes, each by its name.
struct Tuned {
  std::map<std::string, std::int64_t> integers{{"threads", 32}, {"length", 5}};
  std::map<std::string, Shape> shapes;
  void validate() const {}
};

// `choice` restored into `p` over the one method axis `axis`: "" when taken, else the refusal.
std::string restore_one(const app::AutoChoice& choice, MethodAxis<Tuned> axis, Tuned& p) {
  MethodAxes<Tuned> m;
  m.axes = {std::move(axis)};
  try {
    app::restore_choice(m, choice, p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

MethodAxis<Tuned> integer_of(const std::string& key, std::int64_t least, std::int64_t most) {
  return integer_axis<Tuned>(
      key, key, 6, [key](Tuned& t) -> auto& { return t.integers[key]; }, least, most,
      "threads per block");
}

MethodAxis<Tuned> shape_of(const std::string& key) {
  return shape_axis<Tuned>(key, 9, [key](Tuned& t) -> auto& { return t.shapes[key]; },
                           "128x2x1");
}

// A stored choice's whole-number axis (threads, chunk, coarsening, block length) as its method
// axis declares it: in range it is the value; missing, malformed, out of range or past 64 bits it
// is an input error naming the file's line and the axis, saying what was expected and what was
// found. An axis only some configurations have keeps its value where the choice has none.
TEST(Autotune, IntegerAxesOfAStoredChoiceAreReadOrRefusedByName) {
  app::AutoChoice a;
  a.file = "tuned.toml";
  io::AutotuneChoice c;
  c.line = 7;
  c.variant = "thomas-pcr";
  c.axes = {{"threads", "256"}, {"chunk", "8x"}, {"block", "-3"},
            {"huge", "99999999999999999999"}};
  a.choice = c;
  Tuned p;
  EXPECT_EQ(restore_one(a, integer_of("threads", 32, 1024), p), "");
  EXPECT_EQ(p.integers["threads"], 256);
  EXPECT_EQ(restore_one(a, integer_of("length", 0, 100).only_for([](const Tuned&) { return true; }),
                        p),
            "");
  EXPECT_EQ(p.integers["length"], 5);
  const auto refusal = [&](const std::string& axis, std::int64_t least, std::int64_t most) {
    Tuned q;
    return restore_one(a, integer_of(axis, least, most), q);
  };
  const std::string bad = refusal("chunk", 1, 16);
  EXPECT_TRUE(contains(bad, "tuned.toml:7: choice.chunk: expected threads per block, got \"8x\""))
      << bad;
  EXPECT_TRUE(contains(bad, "parasol sweep --autotune")) << bad;
  EXPECT_TRUE(
      contains(refusal("block", 0, 100), "choice.block: expected threads per block, got \"-3\""));
  EXPECT_TRUE(contains(refusal("threads", 512, 1024), "got \"256\""));
  EXPECT_TRUE(contains(refusal("huge", 0, INT64_MAX), "choice.huge"));
  EXPECT_TRUE(
      contains(refusal("missing", 0, 1), "choice.missing: expected threads per block, got \"\""));
}

// A shipped choice this build cannot run gives way to what runs without one, said in one line;
// the user's own such choice is refused, naming its line, as before.
TEST(Autotune, AShippedChoiceThisBuildCannotRunGivesWayToTheDefaults) {
  app::AutoChoice a;
  a.file = "share/parasol/autotune.toml";
  io::AutotuneChoice c;
  c.line = 12;
  c.variant = "thomas-pcr";
  c.axes = {{"threads", "4096"}};
  a.choice = c;
  a.shipped = true;
  MethodAxes<Tuned> m;
  m.axes = {integer_of("threads", 32, 1024)};
  Tuned p;
  testing::internal::CaptureStderr();
  app::restore_found(m, a, p, "thomas 32");
  const std::string note = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(a.choice);
  EXPECT_EQ(a.chosen_by(), "default");
  EXPECT_EQ(p.integers["threads"], 32) << "the parameters as they came";
  EXPECT_TRUE(contains(note, "share/parasol/autotune.toml:12")) << note;
  EXPECT_TRUE(contains(note, "cannot run in this build")) << note;
  EXPECT_TRUE(contains(note, "running thomas 32")) << note;
  EXPECT_EQ(std::count(note.begin(), note.end(), '\n'), 1) << note;

  a.choice = c;
  a.shipped = false;
  try {
    app::restore_found(m, a, p, "thomas 32");
    ADD_FAILURE() << "the user's own choice that cannot run is refused";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "share/parasol/autotune.toml:12: choice.threads")) << e.what();
  }
}

TEST(Autotune, ABlockAxisOfAStoredChoiceIsReadOrRefusedByName) {
  app::AutoChoice a;
  a.file = "tuned.toml";
  io::AutotuneChoice c;
  c.line = 4;
  c.variant = "zreg";
  c.axes = {{"block", "64x4x1"}, {"tile", "64x"}};
  a.choice = c;
  Tuned p;
  EXPECT_EQ(restore_one(a, shape_of("block"), p), "");
  EXPECT_EQ(p.shapes["block"], (Shape{64, 4, 1}));
  const auto refusal = [&](const std::string& axis) {
    Tuned q;
    return restore_one(a, shape_of(axis), q);
  };
  const std::string bad = refusal("tile");
  EXPECT_TRUE(contains(bad, "tuned.toml:4: choice.tile: expected a block shape such as "
                            "\"128x2x1\", got \"64x\""))
      << bad;
  const std::string missing = refusal("missing");
  EXPECT_TRUE(contains(missing, "choice.missing: expected a block shape")) << missing;
}

// Sweeps storing at once: each process reads, puts and saves under the file's lock, so none
// drops what another stored between its read and its write (without the lock about half were
// lost in a run of this test).
TEST(AutotuneFile, ProcessesStoringAtOnceKeepEveryChoice) {
  const test::ScratchDir dir;
  const std::filesystem::path path = dir / "cache" / "autotune.toml";
  constexpr int kProcesses = 6, kEach = 15;
  std::fflush(nullptr);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int status = 0;
      try {
        for (int i = 0; i < kEach; ++i)
          AutotuneFile::store(path, choice_for(h100_key(1000 * (p + 1) + i), "zreg", Shape{32, 8, 1}));
      } catch (...) {
        status = 1;
      }
      _exit(status);
    }
    children.push_back(child);
  }
  for (const pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const AutotuneFile file = AutotuneFile::load(path);
  std::set<std::string> problems;
  for (const AutotuneChoice& c : file.choices()) problems.insert(c.key.problem);
  EXPECT_EQ(problems.size(), std::size_t{kProcesses * kEach});
  for (int p = 0; p < kProcesses; ++p)
    for (int i = 0; i < kEach; ++i)
      EXPECT_TRUE(file.find(h100_key(1000 * (p + 1) + i))) << p << " " << i;
}

// Found before the sweep times anything, not when it stores at the end.
TEST(AutotuneFile, AStoreThatCannotBeWrittenIsRefusedUpFront) {
  const test::ScratchDir dir;
  write_text(dir / "plain", "not a folder");
  const auto refusal = [](const std::filesystem::path& path) {
    try {
      io::require_storable(path);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(refusal(dir / "new" / "deeper" / "autotune.toml"), "no error");
  EXPECT_EQ(refusal(dir / "autotune.toml"), "no error");
  const std::string under_file = refusal(dir / "plain" / "autotune.toml");
  EXPECT_TRUE(contains(under_file, (dir / "plain" / "autotune.toml").string() + ": ")) << under_file;
  EXPECT_TRUE(contains(under_file, "is not a folder")) << under_file;
  EXPECT_TRUE(contains(refusal(dir.path()), "not a regular file"));
  if (geteuid() == 0) {
    std::cout << "running as root: read-only files and folders are writable here\n";
    return;
  }
  write_text(dir / "ro.toml", "");
  chmod((dir / "ro.toml").c_str(), 0444);
  EXPECT_TRUE(contains(refusal(dir / "ro.toml"), "ro.toml: the autotune file is read-only"));
  std::filesystem::create_directory(dir / "ro");
  chmod((dir / "ro").c_str(), 0555);
  EXPECT_TRUE(contains(refusal(dir / "ro" / "autotune.toml"), "is not writable"));
  chmod((dir / "ro").c_str(), 0755);
}

}  // namespace
}  // namespace parasol
