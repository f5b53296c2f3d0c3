// The ranks of a launched run, through MPI. Our own duplicate of MPI_COMM_WORLD keeps this
// layer's messages apart from any other library's; errors return (MPI_ERRORS_RETURN) and
// become MpiError.
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif

#include <climits>
#include <cstdlib>
#include <exception>
#include <string>

#include "comm/detail/world.hpp"
#include "comm/error.hpp"

namespace parasol::comm::detail {
namespace {

int count_of(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error(std::string(what) + ": " + std::to_string(n) +
                " elements in one message is over MPI's int count; send it in parts");
  return static_cast<int>(n);
}

MPI_Datatype mpi_type(Scalar type) {
  switch (type) {
    case Scalar::f64: return MPI_DOUBLE;
    case Scalar::i64: return MPI_INT64_T;
    case Scalar::i32: return MPI_INT;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(Op op) {
  switch (op) {
    case Op::sum: return MPI_SUM;
    case Op::max: return MPI_MAX;
    case Op::min: return MPI_MIN;
  }
  return MPI_OP_NULL;
}

int mpi_rank(int peer) { return peer == kNoRank ? MPI_PROC_NULL : peer; }

// The library says at run time whether it moves device memory itself. Open MPI built without
// CUDA still declares the query (MPIX_CUDA_AWARE_SUPPORT 0 at compile time) and answers it for
// the library actually loaded, which may be a CUDA-aware build.
bool query_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

class MpiWorld final : public World {
 public:
  MpiWorld() : unwinding_at_start_(std::uncaught_exceptions()) {
    int finalized = 0, initialized = 0;
    PARASOL_MPI(MPI_Finalized(&finalized));
    if (finalized)
      throw Error("comm::Context: MPI was finalised by an earlier Context and cannot start "
                  "again in this process");
    PARASOL_MPI(MPI_Initialized(&initialized));
    if (!initialized) {
      // FUNNELED: only the thread that made the Context calls MPI; OpenMP threads in the CPU
      // solvers never do.
      int provided = 0;
      PARASOL_MPI(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
      owns_mpi_ = true;
    }
    PARASOL_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    PARASOL_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
    PARASOL_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    PARASOL_MPI(MPI_Comm_rank(comm_, &rank_));
    PARASOL_MPI(MPI_Comm_size(comm_, &size_));
    PARASOL_MPI(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node_));
    PARASOL_MPI(MPI_Comm_set_errhandler(node_, MPI_ERRORS_RETURN));
    PARASOL_MPI(MPI_Comm_rank(node_, &local_rank_));
    PARASOL_MPI(MPI_Comm_size(node_, &local_size_));
    cuda_aware_ = query_cuda_aware();
  }

  ~MpiWorld() override {
    if (node_ != MPI_COMM_NULL) (void)MPI_Comm_free(&node_);
    if (comm_ != MPI_COMM_NULL) (void)MPI_Comm_free(&comm_);
    // Leaving by an exception, other ranks may be waiting in a collective for this one, and
    // MPI_Finalize would wait for them for ever. Without it the launcher sees a rank end
    // unfinalised and ends the others.
    const bool stranded = std::uncaught_exceptions() > unwinding_at_start_ && size_ > 1;
    if (owns_mpi_ && !stranded) (void)MPI_Finalize();
  }

  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  bool mpi_running() const override { return true; }
  bool cuda_aware() const override { return cuda_aware_; }

  void barrier() override { PARASOL_MPI(MPI_Barrier(comm_)); }

  void broadcast(void* data, std::size_t bytes, int root) override {
    PARASOL_MPI(MPI_Bcast(data, count_of(bytes, "broadcast"), MPI_BYTE, root, comm_));
  }

  void all_reduce(void* data, std::size_t count, Scalar type, Op op) override {
    PARASOL_MPI(MPI_Allreduce(MPI_IN_PLACE, data, count_of(count, "all_reduce"), mpi_type(type),
                              mpi_op(op), comm_));
  }

  void all_gather(const void* mine, void* all, std::size_t bytes) override {
    const int n = count_of(bytes, "all_gather");
    PARASOL_MPI(MPI_Allgather(mine, n, MPI_BYTE, all, n, MPI_BYTE, comm_));
  }

  void send(const void* data, std::size_t bytes, int peer, int tag) override {
    PARASOL_MPI(MPI_Send(data, count_of(bytes, "send"), MPI_BYTE, mpi_rank(peer), tag, comm_));
  }

  void recv(void* data, std::size_t bytes, int peer, int tag) override {
    PARASOL_MPI(MPI_Recv(data, count_of(bytes, "recv"), MPI_BYTE, mpi_rank(peer), tag, comm_,
                         MPI_STATUS_IGNORE));
  }

  void exchange(const Neighbours& n, const HaloBytes& h) override {
    const int count = count_of(h.bytes, "exchange");
    const int down = mpi_rank(n.down), up = mpi_rank(n.up);
    // Nothing moves towards an absent neighbour, whose buffers may be null: MPI refuses a null
    // buffer with a count even for MPI_PROC_NULL.
    const int down_count = down == MPI_PROC_NULL ? 0 : count;
    const int up_count = up == MPI_PROC_NULL ? 0 : count;
    // All four at once, receives first: no ordering between the neighbours can deadlock.
    MPI_Request requests[4];
    PARASOL_MPI(
        MPI_Irecv(h.recv_down, down_count, MPI_BYTE, down, kTagGoingUp, comm_, &requests[0]));
    PARASOL_MPI(MPI_Irecv(h.recv_up, up_count, MPI_BYTE, up, kTagGoingDown, comm_, &requests[1]));
    PARASOL_MPI(
        MPI_Isend(h.send_down, down_count, MPI_BYTE, down, kTagGoingDown, comm_, &requests[2]));
    PARASOL_MPI(MPI_Isend(h.send_up, up_count, MPI_BYTE, up, kTagGoingUp, comm_, &requests[3]));
    PARASOL_MPI(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE));
  }

  [[noreturn]] void abort(int status) override {
    (void)MPI_Abort(comm_ != MPI_COMM_NULL ? comm_ : MPI_COMM_WORLD, status);
    std::_Exit(status);  // MPI_Abort does not return; should a library's do so, end anyway
  }

 private:
  int unwinding_at_start_;
  bool owns_mpi_ = false;
  bool cuda_aware_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL, node_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace

std::unique_ptr<World> make_mpi_world() { return std::make_unique<MpiWorld>(); }

}  // namespace parasol::comm::detail
