// The autotune file: what `parasol sweep --autotune` stores and `method.variant = "auto"` reads.
// Nothing here needs a device: keys are written out as a sweep would make them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "apps/io/autotune.hpp"
#include "kernels/error.hpp"
#include "tests/support.hpp"

namespace parasol {
namespace {

using io::AutotuneChoice;
using io::AutotuneFile;
using io::AutotuneKey;

AutotuneKey h100_key(std::int64_t n, const std::string& precision = "float") {
  return {"NVIDIA H100 80GB HBM3", "9.0", "laplace3d", {n, n, n}, precision};
}

AutotuneChoice choice_for(const AutotuneKey& key, const std::string& variant, Shape block) {
  AutotuneChoice c;
  c.key = key;
  c.variant = variant;
  c.block = block;
  c.gpoints_per_s = 327.04;
  c.gb_per_s = 2616.3;
  c.percent_of_copy = 88.46;
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

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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
  EXPECT_EQ(c->block, (Shape{128, 2, 1}));
  // Measurements are stored to one decimal, for people reading the file.
  EXPECT_DOUBLE_EQ(c->gpoints_per_s, 327.0);
  EXPECT_DOUBLE_EQ(c->gb_per_s, 2616.3);
  EXPECT_DOUBLE_EQ(c->percent_of_copy, 88.5);
  EXPECT_EQ(c->timed, 11);
  EXPECT_EQ(c->date, "2026-11-21T19:04:05Z");
  EXPECT_EQ(c->sweep_file, "/results/laplace3d-512-sweep.h5");
  EXPECT_EQ(c->parasol_version, "0.1.0 (f3556ec)");
  EXPECT_GT(c->line, 0);  // so a complaint about the choice can name its line

  const std::optional<AutotuneChoice> o = back.find(odd);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->key.device, "Lab \"GPU\" \\ 2");
  EXPECT_EQ(o->variant, "block3d");
  EXPECT_EQ(o->block, (Shape{32, 8, 2}));
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
  EXPECT_EQ(back.choices()[1].block, (Shape{32, 8, 1}));
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
  other.grid = {512, 512, 511};
  EXPECT_FALSE(file.find(other).has_value()) << "grid";
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
  EXPECT_TRUE(contains(message, path.string() + ": format: expected \"parasol-autotune-1\""))
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

}  // namespace
}  // namespace parasol
