// embedding and gather_rows: out[i, :] = table[index[i], :]. The copy moves raw elements of
// the table's type, so it serves f32 and bf16 alike. scatter_tokens, the i32 scatter
// dst[pairs[i, 0]] = src[pairs[i, 1]], moves single elements the other way.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int gather_threads = 256;
constexpr int scatter_threads = 256;

// One block per output row; E is an unsigned integer as wide as the element.
template <class E>
__global__ void gather_kernel(E* out, const E* table, const std::int32_t* index,
                              std::int64_t num_table_rows, std::int64_t width) {
  const std::int64_t row = blockIdx.x;
  const std::int32_t src = index[row];
  DEVICE_CHECK("gather", src >= 0 && src < num_table_rows);
  const E* from = table + static_cast<std::int64_t>(src) * width;
  E* to = out + row * width;
  for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) to[i] = from[i];
}

template <class E>
void launch_gather(const tensor& out, const tensor& table, const tensor& index,
                   cudaStream_t stream) {
  const std::int64_t num_rows = index.numel();
  launch_kernel(gather_kernel<E>, dim3(static_cast<unsigned int>(num_rows)), dim3(gather_threads),
                0, stream, out.as<E>(), table.as<const E>(), index.as<const std::int32_t>(),
                table.dim(0), table.row_size());
}

void gather(const char* what, const tensor& out, const tensor& table, const tensor& index,
            cudaStream_t stream) {
  KERNEL_CHECK(what, out.type == table.type && table.rank >= 1);
  KERNEL_CHECK(what, is_float_type(table.type));
  KERNEL_CHECK(what, index.type == dtype::i32);
  const std::int64_t num_rows = index.numel();
  KERNEL_CHECK(what, out.numel() == num_rows * table.row_size());
  KERNEL_CHECK(what, num_rows < (std::int64_t{1} << 31));
  if (num_rows == 0) return;
  if (dtype_size(table.type) == 4) {
    launch_gather<std::uint32_t>(out, table, index, stream);
  } else {
    launch_gather<std::uint16_t>(out, table, index, stream);
  }
}

// One thread per pair. No two pairs share a dst (kernels/ops.h), so the writes never race.
__global__ void scatter_tokens_kernel(std::int32_t* dst, const std::int32_t* src,
                                      const std::int32_t* pairs, std::int64_t num_pairs,
                                      std::int64_t num_dst, std::int64_t num_src) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= num_pairs) return;
  const std::int32_t to = pairs[2 * i];
  const std::int32_t from = pairs[2 * i + 1];
  DEVICE_CHECK("scatter_tokens", to >= 0 && to < num_dst);
  DEVICE_CHECK("scatter_tokens", from >= 0 && from < num_src);
  dst[to] = src[from];
}

}  // namespace

void embedding(const embedding_params& p, cudaStream_t stream) {
  gather("embedding", p.out, p.table, p.ids, stream);
}

void gather_rows(const gather_rows_params& p, cudaStream_t stream) {
  gather("gather_rows", p.out, p.x, p.indices, stream);
}

void scatter_tokens(const scatter_tokens_params& p, cudaStream_t stream) {
  const char* what = "scatter_tokens";
  KERNEL_CHECK(what, p.dst.type == dtype::i32 && p.dst.rank == 1);
  KERNEL_CHECK(what, p.src.type == dtype::i32 && p.src.rank == 1);
  KERNEL_CHECK(what, p.pairs.type == dtype::i32 && p.pairs.rank == 2 && p.pairs.dim(1) == 2);
  const std::int64_t num_pairs = p.pairs.dim(0);
  KERNEL_CHECK(what, num_pairs < (std::int64_t{1} << 31));
  if (num_pairs == 0) return;
  const auto blocks =
      static_cast<unsigned int>((num_pairs + scatter_threads - 1) / scatter_threads);
  launch_kernel(scatter_tokens_kernel, dim3(blocks), dim3(scatter_threads), 0, stream,
                p.dst.as<std::int32_t>(), p.src.as<const std::int32_t>(),
                p.pairs.as<const std::int32_t>(), num_pairs, p.dst.dim(0), p.src.dim(0));
}

}  // namespace pagedserve::kernels::cuda
