// fftconv's operands from the parameters (solvers/fftconv/inputs.hpp), without a file or a
// device: the memory a problem needs, in the order it is checked and against which key, and a
// solver's complaint said against the key the parameter file has (its source left for the front
// end) or against the input file and dataset.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "solvers/fftconv/inputs.hpp"

namespace parasol::fftconv {
namespace {

std::vector<std::string> keys(const std::vector<MemoryNeed>& needs) {
  std::vector<std::string> out;
  for (const MemoryNeed& n : needs)
    out.push_back(n.source_key + ">" + n.key + (n.device ? " device" : " host"));
  return out;
}

TEST(FftconvInputs, TheFilterAloneIsCheckedFirstThenTheHostThenTheDevice) {
  Params p;
  p.filter.rows = 3;  // the key named is the filter's largest axis given
  const Problem q = problem_of<float>(p);
  const std::vector<MemoryNeed> needs = memory_needs(p, q, sizeof(float), true, true);
  EXPECT_EQ(keys(needs), (std::vector<std::string>{"filter.length>filter.rows host",
                                                   "signal>signal host", "signal>signal device"}));
  // One 1D signal could stream instead: the device's refusal says so.
  Params one;
  const std::vector<MemoryNeed> streamable =
      memory_needs(one, problem_of<float>(one), sizeof(float), true, false);
  EXPECT_EQ(streamable.back().hint, " (method.streamed = true needs less)");
  // The gold's output in double comes on top of the operands and output in float.
  const double without = memory_needs(one, problem_of<float>(one), sizeof(float), false, false)
                             .back()
                             .bytes;
  const double with = memory_needs(one, problem_of<float>(one), sizeof(float), false, true)
                          .back()
                          .bytes;
  const Problem q1 = problem_of<float>(one);
  EXPECT_DOUBLE_EQ(with - without, 8.0 * static_cast<double>(output_extent(q1).size()));
}

TEST(FftconvInputs, AStreamedSignalFromAFileNeedsTheFilterAndTheGoldsWindowOnly) {
  Params p;
  p.streamed = true;
  p.signal.source = Source::file;
  p.signal.file = "long.h5";
  Problem q;
  q.signal = {1, 1 << 30};
  q.filter = {1, 255};
  const std::vector<MemoryNeed> needs = memory_needs(p, q, sizeof(float), true, true);
  EXPECT_EQ(keys(needs), (std::vector<std::string>{"filter.length>filter.length host",
                                                   "filter.length>filter.length host"}));
  EXPECT_LT(needs.back().bytes, 1e6);
}

TEST(FftconvInputs, AComplaintIsSaidAgainstTheKeyOrTheFile) {
  Params p;
  const InputError block = rephrased(p, InputError("", "block", "expected more"));
  EXPECT_EQ(block.source(), "");
  EXPECT_EQ(block.key(), "method.block");
  const InputError filters = rephrased(p, InputError("", "filters", "expected one"));
  EXPECT_EQ(filters.key(), "filter");
  p.signal.source = Source::file;
  p.signal.file = "in.h5";
  p.signal.dataset = "x";
  const InputError signal = rephrased(p, InputError("", "signal", "expected 1D"));
  EXPECT_EQ(signal.source(), "in.h5");
  EXPECT_EQ(signal.key(), "/x");
  EXPECT_EQ(signal.expected(), "expected 1D (signal.dataset)");
  // One that names its source already is kept.
  const InputError read = rephrased(p, InputError("in.h5", "/x", "unreadable"));
  EXPECT_EQ(read.source(), "in.h5");
}

}  // namespace
}  // namespace parasol::fftconv
