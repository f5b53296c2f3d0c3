// Owning, move-only memory: DeviceBuffer<T> (cudaMalloc) and PinnedBuffer<T> (cudaMallocHost).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kernels/error.hpp"
#include "kernels/host_memory.hpp"

namespace parasol {

namespace detail {

// The two buffers differ only in how they get and give back memory.
template <class T, class Memory>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t size) : size_(size) {
    if (size > 0) data_ = static_cast<T*>(Memory::allocate(size * sizeof(T)));
  }
  Buffer(Buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  Buffer& operator=(Buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }

 private:
  void release() noexcept {
    if (data_ != nullptr) Memory::release(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

struct DeviceMemory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    PARASOL_CUDA(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept { (void)cudaFree(p); }
};

struct PinnedMemory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    PARASOL_CUDA(cudaMallocHost(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept { (void)cudaFreeHost(p); }
};

}  // namespace detail

template <class T>
using DeviceBuffer = detail::Buffer<T, detail::DeviceMemory>;

// Page-locked host memory: transfers from it run at full PCIe/NVLink speed and can be asynchronous.
template <class T>
class PinnedBuffer : public detail::Buffer<T, detail::PinnedMemory> {
 public:
  using detail::Buffer<T, detail::PinnedMemory>::Buffer;
  T& operator[](std::size_t i) { return this->data()[i]; }
  const T& operator[](std::size_t i) const { return this->data()[i]; }
  T* begin() { return this->data(); }
  T* end() { return this->data() + this->size(); }
};

// Fills a device buffer with a bit pattern byte by byte; tests use 0xFF (a NaN in float and
// double) so an output the kernel never wrote cannot pass for a result.
template <class T>
void fill_bytes(DeviceBuffer<T>& buffer, unsigned char byte, cudaStream_t stream = nullptr) {
  PARASOL_CUDA(cudaMemsetAsync(buffer.data(), byte, buffer.bytes(), stream));
}

// Copies between pointers, enqueued on the stream: `count` values each. The only raw
// cudaMemcpyAsync of the solvers; host memory must stay alive until the stream reaches the copy
// (pinned memory lets it run asynchronously). The buffer forms below check their bounds.
template <class T>
void upload(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  if (count > 0)
    PARASOL_CUDA(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}

// Does not wait for the stream: the values are on the host once it has reached the copy.
template <class T>
void enqueue_download(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  if (count > 0)
    PARASOL_CUDA(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
}

// Waits for the stream.
template <class T>
void download(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  enqueue_download(to, from, count, stream);
  PARASOL_CUDA(cudaStreamSynchronize(stream));
}

template <class T>
void copy_on_device(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  if (count > 0)
    PARASOL_CUDA(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

namespace detail {
// `count` values at `at` fit in a buffer of `size`, or `what` says they do not.
inline void require_within(const char* what, std::size_t at, std::size_t count, std::size_t size) {
  if (at > size || count > size - at)
    throw Error(std::string(what) + ": " + std::to_string(count) + " values at " +
                std::to_string(at) + " of a buffer of " + std::to_string(size));
}
}  // namespace detail

// Host values into a device buffer, enqueued on the stream: `count` values from `from` to the
// buffer's value `at` (its start when not given).
template <class T>
void upload(DeviceBuffer<T>& to, std::size_t at, const T* from, std::size_t count,
            cudaStream_t stream) {
  detail::require_within("upload", at, count, to.size());
  upload(to.data() + at, from, count, stream);
}

template <class T>
void upload(DeviceBuffer<T>& to, const T* from, std::size_t count, cudaStream_t stream) {
  upload(to, 0, from, count, stream);
}

template <class T>
void upload(DeviceBuffer<T>& to, const std::vector<T>& from, cudaStream_t stream) {
  upload(to, from.data(), from.size(), stream);
}

// `count` values of a device buffer from its value `at` (its start when not given) into host
// memory; waits for the stream.
template <class T>
void download(const DeviceBuffer<T>& from, std::size_t at, T* to, std::size_t count,
              cudaStream_t stream) {
  detail::require_within("download", at, count, from.size());
  download(to, from.data() + at, count, stream);
}

template <class T>
void download(const DeviceBuffer<T>& from, T* to, std::size_t count, cudaStream_t stream) {
  download(from, 0, to, count, stream);
}

// `count` values from device memory into a device buffer's start, enqueued on the stream.
template <class T>
void copy_on_device(DeviceBuffer<T>& to, const T* from, std::size_t count, cudaStream_t stream) {
  detail::require_within("copy_on_device", 0, count, to.size());
  copy_on_device(to.data(), from, count, stream);
}

// The whole buffer, as a vector; waits for the stream.
template <class T>
std::vector<T> download(const DeviceBuffer<T>& from, cudaStream_t stream) {
  // Huge pages where the kernel gives them: a GiB's first touch costs 0.19 s, not 0.63 s.
  std::vector<T> values = huge_vector<T>(from.size());
  download(from, values.data(), values.size(), stream);
  return values;
}

}  // namespace parasol
