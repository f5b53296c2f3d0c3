#include "apps/bindings/fftconv_result.hpp"

#include <algorithm>
#include <vector>

#include "io/streamed_dataset.hpp"

namespace parasol::app::fftconv_result {

using fftconv::layout_of;
using fftconv::Operands;
using fftconv::Params;
using fftconv::Problem;
using fftconv::SignalSource;
using fftconv::stored_dims;

void write_problem(io::ResultFile& out, const std::string& group, const Problem& q) {
  out.set_attribute(group, "mode", std::string(name(q.mode)));
  out.set_attribute(group, "operation", std::string(name(q.operation)));
  out.set_attribute(group, "batch", q.batch);
  out.set_attribute(group, "filters", q.filters);
  out.set_attribute(group, "signal_extent", fftconv::rows_cols(q.signal));
  out.set_attribute(group, "filter_extent", fftconv::rows_cols(q.filter));
}

void write_sources(io::ResultFile& out, const Params& p) {
  out.set_attribute("/input", "signal_source",
                    p.signal_generated() ? std::string(name(p.signal.kind)) : p.signal.file);
  out.set_attribute("/input", "filter_source",
                    p.filter_generated() ? std::string(name(p.filter.kind)) : p.filter.file);
}

template <class T>
void write_inputs(io::ResultFile& out, const Params& p, const Operands<T>& ops,
                  const SignalSource<T>* source) {
  const std::int64_t run_samples = io::StreamedDataset<T>::kRunValues;
  const Problem& q = ops.problem;
  if (p.write_input) {
    if (source == nullptr) {
      out.write_field("/input/signal", ops.signal.data(),
                      stored_dims(q.batch, q.signal, q.is_2d()));
    } else {
      const std::int64_t n = q.signal.cols;
      out.create_dataset<T>("/input/signal", static_cast<std::uint64_t>(n));
      std::vector<T> run;
      for (std::int64_t first = 0; first < n; first += run_samples) {
        run.resize(static_cast<std::size_t>(std::min(run_samples, n - first)));
        source->read(first, static_cast<std::int64_t>(run.size()), run.data());
        out.write_slab("/input/signal", static_cast<std::uint64_t>(first), run.data(), run.size());
      }
    }
    out.set_attribute("/input/signal", "layout",
                      layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
    out.write_field("/input/filter", ops.filter.data(),
                    stored_dims(q.filters, q.filter, q.is_2d()));
    out.set_attribute("/input/filter", "layout",
                      layout_of(q.filters > 1, q.is_2d(), "filter", "tap"));
  }
  write_sources(out, p);
}

template <class T>
void write_input_share(Output& out, const Params& p, const Problem& whole, const Operands<T>& share,
                       std::int64_t first) {
  const Problem& q = whole;
  const auto rows = static_cast<std::uint64_t>(share.problem.batch);
  if (p.write_input) {
    out.write_rows("/input/signal", stored_dims(q.batch, q.signal, q.is_2d()),
                   static_cast<std::uint64_t>(first), rows, share.signal.data());
    if (q.filters > 1)
      out.write_rows("/input/filter", stored_dims(q.filters, q.filter, q.is_2d()),
                     static_cast<std::uint64_t>(first), rows, share.filter.data());
  }
  if (out.file == nullptr) return;
  if (p.write_input) {
    out.file->set_attribute("/input/signal", "layout",
                            layout_of(q.batch > 1, q.is_2d(), "signal", "sample"));
    if (q.filters == 1)
      out.file->write_field("/input/filter", share.filter.data(),
                            stored_dims(q.filters, q.filter, q.is_2d()));
    out.file->set_attribute("/input/filter", "layout",
                            layout_of(q.filters > 1, q.is_2d(), "filter", "tap"));
  }
  write_sources(*out.file, p);
}

template void write_inputs<float>(io::ResultFile&, const Params&, const Operands<float>&,
                                  const SignalSource<float>*);
template void write_inputs<double>(io::ResultFile&, const Params&, const Operands<double>&,
                                   const SignalSource<double>*);
template void write_input_share<float>(Output&, const Params&, const Problem&,
                                        const Operands<float>&, std::int64_t);
template void write_input_share<double>(Output&, const Params&, const Problem&,
                                         const Operands<double>&, std::int64_t);

}  // namespace parasol::app::fftconv_result
