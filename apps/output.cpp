// How a run's fields reach its result file, on one rank or across ranks (Output, in binding.hpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apps/binding.hpp"
#include "apps/ranks.hpp"
#include "io/direct_write.hpp"
#include "io/hdf5_calls.hpp"
#include "kernels/error.hpp"

namespace parasol::app {
namespace {

std::string extent_text(const std::vector<std::uint64_t>& dims) {
  std::string text;
  for (const std::uint64_t n : dims) text += (text.empty() ? "" : "x") + std::to_string(n);
  return text;
}

}  // namespace

const io::DirectDataset* Output::laid_out(const std::string& dataset,
                                          const std::vector<std::uint64_t>& dims,
                                          std::size_t element_bytes) const {
  const std::string path = io::normalized(dataset);
  for (const io::DirectDataset& d : datasets_) {
    if (d.path != path) continue;
    if (d.dims != dims || d.element_bytes != element_bytes)
      throw Error(path + ": written as " + extent_text(dims) + " of " +
                  std::to_string(element_bytes) + "-byte elements, made as " +
                  extent_text(d.dims) + " of " + std::to_string(d.element_bytes));
    return &d;
  }
  if (file == nullptr)
    throw Error(path + ": written by this rank but not made by rank 0: every rank must write "
                       "the same fields");
  return nullptr;
}

void Output::put_direct(const std::string& dataset, const std::vector<std::uint64_t>& offset,
                        const std::vector<std::uint64_t>& count, const void* data,
                        std::size_t element_bytes, bool later) {
  const std::string path = io::normalized(dataset);
  for (std::size_t i = 0; i < datasets_.size(); ++i) {
    const io::DirectDataset& d = datasets_[i];
    if (d.path != path) continue;
    if (d.element_bytes != element_bytes)
      throw Error(path + ": written in " + std::to_string(element_bytes) +
                  "-byte elements, made of " + std::to_string(d.element_bytes));
    if (later && file != nullptr) kept_.push_back({i, offset, count, data});
    else direct->write_block(d, offset, count, data);
    return;
  }
  throw Error(path + ": a block written before the dataset was made (Output::create)");
}

void Output::finish_direct() {
  for (const Kept& k : kept_) direct->write_block(datasets_[k.dataset], k.offset, k.count, k.data);
  kept_.clear();
  direct->finish();
}

std::string write_fields(comm::Context& context, Run& run, io::ResultFile* file) {
  std::string also;
  const auto add_sidecars = [&](const Output& out) {
    for (const Sidecar& s : out.sidecars) {
      file->add_sidecar(s.path, s.contents);
      also += (also.empty() ? " (and " : ", ") + s.path.string();
    }
  };
  if (context.size() == 1) {
    Output out;
    out.file = file;
    run.write(out);
    add_sidecars(out);
    return also;
  }

  // Rank 0 makes every dataset and says how the others write: at once when nothing is filtered
  // (a filter's chunks are HDF5's to lay out), in turn otherwise.
  Output out;
  out.whole = false;
  out.file = file;
  std::optional<io::DirectWriter> writer;
  std::string temporary, table;
  bool at_once = false;
  together(context, [&] {
    if (file == nullptr) return;
    at_once = file->compression().filter == io::Compression::Filter::none;
    if (at_once) {
      writer.emplace(file->temporary_path());
      out.direct = &*writer;
    }
    run.write(out);
    add_sidecars(out);
    table = io::to_text(out.datasets_);
    file->suspend();
    temporary = file->temporary_path().string();
  });
  context.broadcast(temporary);
  context.broadcast(at_once);
  if (at_once) {
    context.broadcast(table);
    together(context, [&] {
      if (file != nullptr) {
        out.finish_direct();
        return;
      }
      io::DirectWriter mine_writer(temporary);
      Output mine;
      mine.whole = false;
      mine.direct = &mine_writer;
      mine.datasets_ = io::parse_direct_datasets(table);
      run.write(mine);
      mine.finish_direct();
    });
    return also;
  }
  for (int turn = 1; turn < context.size(); ++turn)
    together(context, [&] {
      if (context.rank() != turn) return;
      io::ResultFile::Part part(temporary);
      Output mine;
      mine.part = &part;
      mine.whole = false;
      run.write(mine);
      part.close();
    });
  return also;
}

}  // namespace parasol::app
