// embedding and gather_rows: out[i, :] = table[index[i], :]. The copy moves raw elements of
// the table's type, so it serves f32 and bf16 alike.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int gather_threads = 256;

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

}  // namespace

void embedding(const embedding_params& p, cudaStream_t stream) {
  gather("embedding", p.out, p.table, p.ids, stream);
}

void gather_rows(const gather_rows_params& p, cudaStream_t stream) {
  gather("gather_rows", p.out, p.x, p.indices, stream);
}

}  // namespace pagedserve::kernels::cuda
