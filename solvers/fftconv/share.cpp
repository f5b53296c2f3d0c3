#include "solvers/fftconv/share.hpp"

#include <algorithm>
#include <string>

#include "comm/halo.hpp"
#include "kernels/error.hpp"
#include "kernels/precision.hpp"

namespace parasol::fftconv {
namespace {

InputError refused(const std::string& why) { return InputError("", "ranks", why); }

}  // namespace

template <class T>
void gold_in_pieces(const Problem& p, const std::vector<T>& filter, std::int64_t first,
                    std::int64_t count, const SignalReader<T>& read, const GoldPiece& each,
                    std::int64_t piece) {
  for (std::int64_t at = 0; at < count; at += piece)
    each(first + at, gold_window(p, filter, first + at, std::min(piece, count - at), read));
}

template <class T>
void convolve_pieces(const Problem& p, const std::vector<T>& filter, const SignalReader<T>& read,
                     const OutputWriter<T>& sink, std::int64_t first, std::int64_t count, bool gpu,
                     std::int64_t block, std::int64_t piece, GoldDifference* judged) {
  if (gpu)
    return convolve_streamed<T>(p, {Variant::overlap_save, block}, filter, read, sink, piece,
                                first, count);
  gold_in_pieces<T>(p, filter, first, count, read,
                    [&](std::int64_t offset, const std::vector<double>& gold) {
                      const std::vector<T> values = rounded<T>(gold);
                      if (judged != nullptr) judged->add(values.data(), gold);
                      sink(offset, static_cast<std::int64_t>(values.size()), values.data());
                    });
}

Problem Share::part(const Problem& whole) const {
  Problem part = whole;
  part.batch = count;
  if (whole.filters > 1) part.filters = count;
  return part;
}

Share share_of(const Problem& q, const Options& asked, int element_bytes, bool gpu,
               bool streamed, int rank, int ranks) {
  Share s;
  if (q.batch > 1) {
    if (q.batch < ranks)
      throw refused(std::to_string(q.batch) + " signals cannot be cut among " +
                    std::to_string(ranks) + " ranks; run fewer ranks");
    s.cut = Cut::batch;
    s.method = chosen_options(q, asked, element_bytes);
    // Signals kept together: fused's pairs of blocks of neighbouring signals.
    const std::int64_t unit = gpu ? batch_cut_unit(q, s.method, element_bytes) : 1;
    // Whole units to each rank, the last unit maybe short.
    const std::int64_t whole_units = (q.batch + unit - 1) / unit;
    if (whole_units < ranks)
      throw refused(std::to_string(q.batch) + " signals, cut in pairs (fused pairs blocks of " +
                    "neighbouring signals in one transform), cannot be cut among " +
                    std::to_string(ranks) + " ranks; run fewer ranks or another variant");
    const comm::Slab units = comm::even_slab(whole_units, rank, ranks);
    s.first = std::min(q.batch, units.begin * unit);
    s.count = std::min(q.batch, units.end * unit) - s.first;
    return s;
  }
  if (q.is_2d()) throw refused("one image runs on one rank; a batch of images is cut among ranks");
  s.cut = Cut::range;
  // On the GPU in memory, the variant the whole problem would run (overlap-save or fused)
  // computes each range; otherwise overlap-save from the host, piece by piece.
  const Options chosen = chosen_options(q, asked, element_bytes);
  s.in_memory = gpu && !streamed && computes_ranges(chosen);
  s.method = s.in_memory ? chosen : Options{Variant::overlap_save, asked.block};
  // Outputs a rank's range starts at a multiple of.
  const std::int64_t step = range_step(q, s.method, element_bytes);
  const std::int64_t outputs = output_extent(q).cols;
  const std::int64_t blocks = (outputs + step - 1) / step;
  if (blocks < ranks)
    throw refused(std::to_string(outputs) + " output samples make " + std::to_string(blocks) +
                  " " + std::string(name(s.method.variant)) + " blocks of " +
                  std::to_string(step) + ", too few to cut among " + std::to_string(ranks) +
                  " ranks");
  const comm::Slab mine = comm::even_slab(blocks, rank, ranks);
  s.first = mine.begin * step;
  s.count = std::min(outputs, mine.end * step) - s.first;
  return s;
}

template void gold_in_pieces<float>(const Problem&, const std::vector<float>&, std::int64_t,
                                    std::int64_t, const SignalReader<float>&, const GoldPiece&,
                                    std::int64_t);
template void gold_in_pieces<double>(const Problem&, const std::vector<double>&, std::int64_t,
                                     std::int64_t, const SignalReader<double>&, const GoldPiece&,
                                     std::int64_t);

template void convolve_pieces<float>(const Problem&, const std::vector<float>&,
                                     const SignalReader<float>&, const OutputWriter<float>&,
                                     std::int64_t, std::int64_t, bool, std::int64_t, std::int64_t,
                                     GoldDifference*);
template void convolve_pieces<double>(const Problem&, const std::vector<double>&,
                                      const SignalReader<double>&, const OutputWriter<double>&,
                                      std::int64_t, std::int64_t, bool, std::int64_t,
                                      std::int64_t, GoldDifference*);

}  // namespace parasol::fftconv
