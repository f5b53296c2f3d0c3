// fftconv's operands as the parameters describe them: generated ([signal] and [filter] kinds), or
// read from files through a reader (inputs.hpp's reads HDF5 through io/; the rest of the
// library knows only this interface), whole, a rank's rows of a batch, or for a streamed run
// sample by sample as the convolution asks; and how operands and outputs are laid out when they
// are stored. Host-only API.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "solvers/fftconv/fftconv.hpp"
#include "solvers/fftconv/params.hpp"
#include "solvers/fftconv/volume.hpp"

namespace parasol::fftconv {

// An operand's file, read as inputs.hpp's operand_files reads it. `key` is the parameter that named the
// dataset ("signal.dataset"), for the reader's messages; every value read is checked finite.
template <class T>
class OperandFiles {
 public:
  virtual ~OperandFiles() = default;
  // The dataset's extent, of one of `ranks` dimensions; refused when it holds nothing
  // (`least`: "one sample").
  virtual std::vector<std::uint64_t> dims(const std::string& file, const std::string& dataset,
                                          const char* key, const std::vector<int>& ranks,
                                          const char* least) const = 0;
  virtual std::vector<T> values(const std::string& file, const std::string& dataset,
                                const char* key) const = 0;
  // Rows [first, first + count) along the first dimension, `size` values each.
  virtual std::vector<T> rows(const std::string& file, const std::string& dataset, const char* key,
                              std::int64_t first, std::int64_t count, std::int64_t size) const = 0;
  // A 1D dataset held open: its samples [offset, offset + count) into `into` at each call.
  using Slab = std::function<void(std::int64_t offset, std::int64_t count, T* into)>;
  virtual Slab slab(const std::string& file, const std::string& dataset, const char* key) const = 0;
};

// A volume problem reads every dataset as one volume: a file operand's layout left out
// (`signal_layout_given`, `filter_layout_given`: whether the file set it) becomes "volume"; one
// given otherwise is an InputError naming signal.layout or filter.layout. Nothing for a 1D or 2D
// problem.
void settle_volume_layouts(Params& p, bool signal_layout_given, bool filter_layout_given);

// The keys a complaint about the problem is said against: what sized the signal ("signal", the
// generated signal's table, or "signal.file"); what a cut among ranks cut (signal.file,
// signal.batch or signal.length); and what made the problem a volume.
std::string size_key(const Params& p);
std::string cut_key(const Params& p, const Problem& q);
std::string volume_key(const Params& p);

// The problem's extents as the parameters and files say (of a file only its dataset's extent is
// read), unchecked: [n] is one operand; [batch][n] a batch or [rows][cols] one image, as the
// operand's layout says; [batch][rows][cols] a batch of images. A streamed signal is one 1D one.
template <class T>
Problem operand_extents(const Params& p, const OperandFiles<T>& files);

template <class T>
struct Operands {
  Problem problem;
  std::vector<T> signal;  // batch * signal.size() values; empty when streamed from a file, or
                          // when drawn on the device
  std::vector<T> filter;  // filters * filter.size() values
  // The signal left to be drawn on the device (fftconv::convolve_gpu from a Signal): signals
  // [first_drawn, first_drawn + problem.batch) of the batch p.signal generates.
  bool drawn = false;
  std::int64_t first_drawn = 0;
};

// Whether a run draws its generated signal on the device and never on the host: a GPU run of a
// generated, unstreamed signal that needs no host copy (no --check, whose gold reads it; no
// output.input, which writes it).
bool draws_on_device(const Params& p, bool gpu, bool check);

// The values of problem q, generated or read. The filter first, and a file before a generated
// signal: a mistake in a file is reported before seconds go into a long signal. With
// `on_device` (draws_on_device) a generated signal is left to the device (Operands::drawn).
template <class T>
Operands<T> load_operands(const Params& p, const Problem& q, const OperandFiles<T>& files,
                          bool on_device = false);

// A rank's share of a batch: signals [first, first + count) of problem q and their filters (the
// one filter, or the share's own when each signal has one), generated or read alone (only those
// rows of each file). The problem returned has batch = count. With `on_device`, as load_operands.
template <class T>
Operands<T> load_share(const Params& p, const Problem& q, const OperandFiles<T>& files,
                       std::int64_t first, std::int64_t count, bool on_device = false);

// A streamed run's signal: samples [offset, offset + count), generated or by slab from its file.
template <class T>
class SignalSource {
 public:
  SignalSource(const Params& p, const Operands<T>& ops, const OperandFiles<T>& files);
  void read(std::int64_t offset, std::int64_t count, T* into) const;

 private:
  const Params& p_;
  const Operands<T>& ops_;
  typename OperandFiles<T>::Slab file_;  // empty when generated
};

// Volumes (Params::is_volume): one signal and one filter, each [depth][rows][cols]. A 1D or 2D
// dataset is a volume one slice (and row) deep. Unchecked, as operand_extents.
template <class T>
VolumeProblem volume_extents(const Params& p, const OperandFiles<T>& files);

template <class T>
struct VolumeOperands {
  VolumeProblem problem;
  std::vector<T> signal, filter;
};

template <class T>
VolumeOperands<T> load_volume(const Params& p, const VolumeProblem& q,
                              const OperandFiles<T>& files);

// A volume's convolution on the backend a run was given: on the GPU by the variant asked for
// (convolve_volume_gpu: plans and spectrum made by a first convolution, a second timed alone),
// or by the CPU gold, its output rounded to T and kept in double for the check.
template <class T>
struct VolumeOutput {
  std::vector<T> output;
  std::vector<double> gold;          // the CPU's; empty after a GPU run
  Variant ran = Variant::automatic;  // on the GPU: the variant that ran
  std::int64_t chunks = 1;           // on the GPU: r2c's chunks along z
  PhaseTimer timings;                // as Result's: on the CPU compute alone
};
template <class T>
VolumeOutput<T> convolve_volume(const VolumeOperands<T>& ops, Variant variant, bool gpu);

// Where a volume's output sample 0 lies on the signal's grid, x, y and z: with the filter
// centred on its tap (k - 1) / 2 along each axis, at offset - (k - 1) / 2 (0 in same mode, so the
// output overlays the signal).
std::array<double, 3> output_origin(const VolumeProblem& q);

// How an operand or output is stored: [n] or (2D problems) [rows][cols], with a leading [count]
// for a batch; and the layout attribute that says so.
std::vector<std::uint64_t> stored_dims(std::int64_t count, const Extent& e, bool two_d);
std::string layout_of(bool batch, bool two_d, const char* item, const char* axis);
// A volume as stored, and its layout attribute.
std::vector<std::uint64_t> volume_dims(const Extent3& e);
inline constexpr const char* kVolumeLayout = "[z][row][col], col fastest";
// An extent as an attribute: [rows, cols].
inline std::vector<std::int64_t> rows_cols(const Extent& e) { return {e.rows, e.cols}; }
// /output@units: a sum of products of the two.
inline constexpr const char* kOutputUnits =
    "the signal's times the filter's (a generated filter sums to 1: the signal's)";

// "1000" for a 1D extent, "32 x 32" for a 2D one, "16 x 32 x 32" for a volume.
std::string extent_text(const Extent& e);
std::string extent_text(const Extent3& e);

// The problem class an autotune choice is stored under: the signal's and filter's extents, the
// batch, the filters, the mode and the operation, exactly ("signal=16777216,filter=1025,batch=1,
// filters=1,full,convolve").
std::string problem_class(const Problem& q);

// Attributes a result file records (/timings', /output's, /sweep's), in the order written.
using Attributes = std::vector<
    std::pair<std::string, std::variant<std::string, std::int64_t, double, bool,
                                        std::vector<std::int64_t>>>>;

// The problem as /output and /sweep record it: its mode, operation and shape.
Attributes problem_attributes(const Problem& q);

// What a convolution promises of its bits, in words.
std::string reproducibility_because(bool gpu);

}  // namespace parasol::fftconv
