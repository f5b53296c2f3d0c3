// The method axes each solver declares (kernels/method_axes.hpp) and what the front end derives
// from them (apps/method_axes.hpp): a sweep's columns and cells, an autotune choice, the method
// in words, and a stored choice restored, with the errors a choice this build cannot run gets.
// None of it needs a device, so it is tested here where the sweep and `auto` paths cannot run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apps/method_axes.hpp"
#include "solvers/coulomb/keys.hpp"
#include "solvers/fftconv/keys.hpp"
#include "solvers/laplace3d/keys.hpp"
#include "solvers/montecarlo/keys.hpp"
#include "solvers/recurrence/keys.hpp"
#include "solvers/tridiag/keys.hpp"
#include "solvers/tridiag/long.hpp"

namespace parasol::app {
namespace {

std::vector<std::string> names(const std::vector<ResultsTable::Column>& columns) {
  std::vector<std::string> out;
  for (const ResultsTable::Column& c : columns) out.push_back(c.name + "/" + c.header + "/" + std::to_string(c.width));
  return out;
}

// A choice as an autotune file holds it, read from line 7 of choices.toml.
AutoChoice stored(std::string variant, std::vector<std::pair<std::string, std::string>> axes) {
  AutoChoice a;
  a.file = "choices.toml";
  io::AutotuneChoice c;
  c.variant = std::move(variant);
  c.axes = std::move(axes);
  c.line = 7;
  a.choice = c;
  return a;
}

// The InputError restore_choice throws for `choice`, or a test failure when it throws none.
template <class P>
InputError refusal(const AutoChoice& choice, P p) {
  try {
    restore_choice(method_axes(p), choice, p);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "the choice was taken";
  return InputError("");
}

TEST(MethodAxes, Laplace3dSweepsVariantAndBlock) {
  laplace3d::Params p;
  const auto& axes = method_axes(p);
  EXPECT_EQ(names(axis_columns(axes)),
            (std::vector<std::string>{"variant/variant/10", "block/block/10"}));
  p.variant = laplace3d::Variant::block3d;
  p.block = {32, 8, 2};
  EXPECT_EQ(axis_cells(axes, p), (std::vector<Cell>{std::string("block3d"), std::string("32x8x2")}));
  EXPECT_EQ(method_text(axes, laplace3d::Params{}), "zreg 64x4x1");
  const io::AutotuneChoice c = axis_choice(axes, {}, p);
  EXPECT_EQ(c.variant, "block3d");
  EXPECT_EQ(c.axes, (std::vector<std::pair<std::string, std::string>>{{"block", "32x8x2"}}));
}

TEST(MethodAxes, Laplace3dRestoresAStoredChoice) {
  laplace3d::Params p;
  restore_choice(method_axes(p), stored("zmarch", {{"block", "32x8x1"}}), p);
  EXPECT_EQ(p.variant, laplace3d::Variant::zmarch);
  EXPECT_EQ(p.block, (Shape{32, 8, 1}));
}

// Written by a build with other variants or shapes compiled in, a choice may not parse: the
// error names the file, the choice's line and the axis at fault.
TEST(MethodAxes, Laplace3dRefusesAChoiceThisBuildCannotRun) {
  const InputError shape = refusal(stored("zreg", {{"block", "wide"}}), laplace3d::Params{});
  EXPECT_EQ(shape.source(), "choices.toml:7");
  EXPECT_EQ(shape.key(), "choice.block");
  EXPECT_NE(shape.expected().find("expected a block shape such as \"128x2x1\", got \"wide\""),
            std::string::npos)
      << shape.expected();
  EXPECT_EQ(refusal(stored("zreg", {{"block", "48x4x1"}}), laplace3d::Params{}).key(),
            "choice.block");
  EXPECT_EQ(refusal(stored("warp-march", {{"block", "64x4x1"}}), laplace3d::Params{}).key(),
            "choice.variant");
}

// scatter ignores the block: a row and a choice say "-", and a stored "-" keeps the block.
TEST(MethodAxes, CoulombScatterHasNoBlock) {
  coulomb::Params p;
  const auto& axes = method_axes(p);
  EXPECT_EQ(names(axis_columns(axes)),
            (std::vector<std::string>{"variant/variant/14", "block/block/9", "coarsening/coarse/6"}));
  p.variant = coulomb::Variant::scatter;
  p.coarsening = 1;
  EXPECT_EQ(axis_cells(axes, p),
            (std::vector<Cell>{std::string("scatter"), std::string("-"), std::int64_t{1}}));
  EXPECT_EQ(axis_choice(axes, {}, p).axes,
            (std::vector<std::pair<std::string, std::string>>{{"block", "-"}, {"coarsening", "1"}}));
  coulomb::Params q;
  q.atoms_file = "atoms.pqr";  // validate() asks for one
  restore_choice(axes, stored("scatter", {{"block", "-"}, {"coarsening", "1"}}), q);
  EXPECT_EQ(q.variant, coulomb::Variant::scatter);
  EXPECT_EQ(q.block, coulomb::Params{}.block);
  EXPECT_EQ(q.coarsening, 1);
  EXPECT_EQ(method_text(axes, coulomb::Params{}), coulomb::describe_method(coulomb::Params{}));
  const InputError e =
      refusal(stored("gather", {{"block", "32x8x1"}, {"coarsening", "3x"}}), q);
  EXPECT_EQ(e.key(), "choice.coarsening");
  EXPECT_NE(e.expected().find("expected points per thread, got \"3x\""), std::string::npos)
      << e.expected();
}

// The batch size and the generator are recorded, not swept; device-rng has no ordering.
TEST(MethodAxes, MontecarloOrderingOnlyForHostRng) {
  montecarlo::Params p;
  const auto& axes = method_axes(p);
  EXPECT_EQ(names(axis_columns(axes)),
            (std::vector<std::string>{"variant/variant/11", "block/block/6", "ordering/ordering/9"}));
  p.variant = montecarlo::Variant::device_rng;
  p.block = 256;
  EXPECT_EQ(axis_cells(axes, p),
            (std::vector<Cell>{std::string("device-rng"), std::int64_t{256}, std::string("-")}));
  p.variant = montecarlo::Variant::host_rng;
  p.ordering = montecarlo::Ordering::legacy;
  const io::AutotuneChoice c = axis_choice(axes, {}, p);
  EXPECT_EQ(c.variant, "host-rng");
  EXPECT_EQ(c.axes, (std::vector<std::pair<std::string, std::string>>{{"block", "256"},
                                                                      {"ordering", "default"}}));
  montecarlo::Params q;
  restore_choice(axes, stored("host-rng", {{"block", "128"}, {"ordering", "default"}}), q);
  EXPECT_EQ(q.variant, montecarlo::Variant::host_rng);
  EXPECT_EQ(q.block, 128);
  EXPECT_EQ(q.ordering, montecarlo::Ordering::legacy);
  // A choice without an ordering keeps the default's.
  montecarlo::Params r;
  restore_choice(axes, stored("host-rng", {{"block", "64"}}), r);
  EXPECT_EQ(r.ordering, montecarlo::Params{}.ordering);
  EXPECT_EQ(r.block, 64);
  EXPECT_EQ(refusal(stored("device-rng", {{"block", "4096"}, {"ordering", "-"}}),
                    montecarlo::Params{})
                .key(),
            "choice.block");
}

// recurrence's modes differ in what they promise: swept, never chosen for a user.
TEST(MethodAxes, RecurrenceModeIsSweptNotTuned) {
  recurrence::Params p;
  const auto& axes = method_axes(p);
  EXPECT_FALSE(axes.autotuned);
  EXPECT_EQ(names(axis_columns(axes)), (std::vector<std::string>{"mode/mode/13"}));
  p.mode = ScanMode::reproducible;
  EXPECT_EQ(axis_cells(axes, p), (std::vector<Cell>{std::string("reproducible")}));
}

// tridiag sweeps variant, threads and chunk; /method records the layout the variant solves on,
// and one long system cut by rows its one method. "auto" falls back to the kind's own variant.
TEST(MethodAxes, TridiagSweepsVariantThreadsAndChunk) {
  tridiag::Params p;
  const auto& axes = method_axes(p);
  EXPECT_TRUE(axes.autotuned);
  EXPECT_EQ(names(axis_columns(axes)), (std::vector<std::string>{"variant/variant/11",
                                                                 "threads/threads/7",
                                                                 "chunk/chunk/5"}));
  p.variant = tridiag::Variant::thomas;
  p.threads = 128;
  EXPECT_EQ(axis_cells(axes, p),
            (std::vector<Cell>{std::string("thomas"), std::int64_t{128}, std::int64_t{0}}));
  EXPECT_EQ(method_text(axes, p), "thomas, 128 threads");
  const io::AutotuneChoice c = axis_choice(axes, {}, p);
  EXPECT_EQ(c.variant, "thomas");
  EXPECT_EQ(c.axes,
            (std::vector<std::pair<std::string, std::string>>{{"threads", "128"}, {"chunk", "0"}}));
  p.kind = tridiag::Kind::multi_rhs;
  for (const MethodAxis<tridiag::Params>& a : axes.axes)
    if (a.reset) a.reset(p);
  EXPECT_EQ(p.variant, tridiag::default_variant(tridiag::Kind::multi_rhs));
  EXPECT_EQ(axis_text(axes.axes.back(), p), "interleaved");  // thomas on a kind's batch

  tridiag::Params rows;
  rows.cut = tridiag::Cut::rows;
  EXPECT_EQ(axis_text(axes.axes[0], rows), "partition");
  EXPECT_EQ(axis_text(axes.axes[2], rows), std::to_string(tridiag::kDevicePieceRows));
  EXPECT_EQ(axis_text(axes.axes[3], rows), "contiguous");
}

TEST(MethodAxes, TridiagRestoresAStoredChoice) {
  tridiag::Params p;
  p.problem = tridiag::Problem::random;
  restore_choice(method_axes(p), stored("thomas-scan", {{"threads", "512"}, {"chunk", "8"}}), p);
  EXPECT_EQ(p.variant, tridiag::Variant::thomas_scan);
  EXPECT_EQ(p.threads, 512);
  EXPECT_EQ(p.chunk, 8);
  EXPECT_EQ(refusal(stored("thomas", {{"threads", "many"}, {"chunk", "0"}}), tridiag::Params{})
                .key(),
            "choice.threads");
  EXPECT_EQ(refusal(stored("thomas", {{"threads", "128"}}), tridiag::Params{}).key(),
            "choice.chunk");
  EXPECT_EQ(refusal(stored("cr", {{"threads", "128"}, {"chunk", "0"}}), tridiag::Params{}).key(),
            "choice.variant");
}

// fftconv's sweep varies the variant alone; a choice stores the variant that ran and, for
// overlap-save, its block; /method records neither (a run's variant is /output@variant).
TEST(MethodAxes, FftconvSweepsVariantAndStoresTheBlock) {
  fftconv::Params p;
  const auto& axes = method_axes(p);
  EXPECT_TRUE(axes.autotuned);
  EXPECT_EQ(names(axis_columns(axes)), (std::vector<std::string>{"variant/variant/12"}));
  p.variant = fftconv::Variant::overlap_save;
  EXPECT_EQ(axis_cells(axes, p), (std::vector<Cell>{std::string("overlap-save")}));
  for (const MethodAxis<fftconv::Params>& a : axes.axes) EXPECT_FALSE(a.recorded_for(p)) << a.key;
  fftconv::Params q;
  restore_choice(axes, stored("overlap-save", {{"block", "4096"}}), q);
  EXPECT_EQ(q.variant, fftconv::Variant::overlap_save);
  EXPECT_EQ(q.block, 4096);
  // A choice without a block keeps the length chosen from the filter.
  fftconv::Params r;
  restore_choice(axes, stored("direct", {}), r);
  EXPECT_EQ(r.variant, fftconv::Variant::direct);
  EXPECT_EQ(r.block, 0);
  // auto is what asks for a choice, never one.
  const InputError a = refusal(stored("auto", {}), fftconv::Params{});
  EXPECT_EQ(a.key(), "choice.variant");
  EXPECT_NE(std::string(a.what()).find("expected a variant other than auto"), std::string::npos)
      << a.what();
  const InputError b = refusal(stored("overlap-save", {{"block", "long"}}), fftconv::Params{});
  EXPECT_EQ(b.key(), "choice.block");
  EXPECT_NE(std::string(b.what()).find("expected a transform length, got \"long\""),
            std::string::npos)
      << b.what();
}

}  // namespace
}  // namespace parasol::app
