#pragma once
// tensor: a non-owning view of backend memory (host memory for the CPU backend, device
// memory for CUDA). Row-major and contiguous; ops read the shape, never the memory, on the
// host side. Views are cheap values: reshape and row slices make new views of the same bytes.

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace pagedserve::kernels {

// u8: raw bytes (packed 4-bit codes, 8-bit codes, fp8 e4m3 bit patterns) of quantized weights.
enum class dtype : std::uint8_t { f32, bf16, f16, i32, u8 };

[[nodiscard]] constexpr std::size_t dtype_size(dtype type) {
  switch (type) {
    case dtype::f32:
    case dtype::i32:
      return 4;
    case dtype::bf16:
    case dtype::f16:
      return 2;
    case dtype::u8:
      return 1;
  }
  return 0;
}

[[nodiscard]] constexpr bool is_float_type(dtype type) {
  return type != dtype::i32 && type != dtype::u8;
}

inline constexpr int max_rank = 4;

struct tensor {
  void* data = nullptr;
  dtype type = dtype::f32;
  int rank = 0;
  std::array<std::int64_t, max_rank> shape{};

  [[nodiscard]] static tensor make(void* data, dtype type,
                                   std::initializer_list<std::int64_t> dims) {
    assert(dims.size() <= static_cast<std::size_t>(max_rank));
    tensor t;
    t.data = data;
    t.type = type;
    for (std::int64_t d : dims) t.shape[static_cast<std::size_t>(t.rank++)] = d;
    return t;
  }

  [[nodiscard]] bool empty() const { return data == nullptr; }
  [[nodiscard]] std::int64_t dim(int i) const {
    assert(i >= 0 && i < rank);
    return shape[static_cast<std::size_t>(i)];
  }
  [[nodiscard]] std::int64_t numel() const {
    std::int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= shape[static_cast<std::size_t>(i)];
    return n;
  }
  [[nodiscard]] std::size_t num_bytes() const {
    return static_cast<std::size_t>(numel()) * dtype_size(type);
  }
  // Elements per row: the product of all dims but the first.
  [[nodiscard]] std::int64_t row_size() const { return rank == 0 ? 1 : numel() / shape[0]; }

  // Same bytes, new shape (numel must match).
  [[nodiscard]] tensor reshape(std::initializer_list<std::int64_t> dims) const {
    tensor t = make(data, type, dims);
    assert(t.numel() == numel());
    return t;
  }
  // Rows [first, first + count) along dim 0.
  [[nodiscard]] tensor rows(std::int64_t first, std::int64_t count) const {
    assert(rank >= 1 && first >= 0 && first + count <= shape[0]);
    tensor t = *this;
    t.data = static_cast<std::byte*>(data) +
             static_cast<std::size_t>(first * row_size()) * dtype_size(type);
    t.shape[0] = count;
    return t;
  }

  template <class T>
  [[nodiscard]] T* as() const {
    return static_cast<T*>(data);
  }
};

}  // namespace pagedserve::kernels
