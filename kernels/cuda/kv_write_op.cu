// kv_write: key_cache[slot_mapping[t]] = key[t] and the same for values, for a cache laid out
// [num_blocks, block_size, num_kv_heads, head_dim] (slot = block * block_size + offset).

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int kv_write_threads = 256;

// One block per token; E is an unsigned integer as wide as the element. `row` is
// num_kv_heads * head_dim elements.
template <class E>
__global__ void kv_write_kernel(E* key_cache, E* value_cache, const E* key, const E* value,
                                const std::int32_t* slot_mapping, std::int64_t num_slots,
                                std::int64_t row) {
  const std::int64_t token = blockIdx.x;
  const std::int32_t slot = slot_mapping[token];
  DEVICE_CHECK("kv_write", slot >= 0 && slot < num_slots);
  const std::int64_t dst = static_cast<std::int64_t>(slot) * row;
  const std::int64_t src = token * row;
  for (std::int64_t i = threadIdx.x; i < row; i += blockDim.x) {
    key_cache[dst + i] = key[src + i];
    value_cache[dst + i] = value[src + i];
  }
}

template <class E>
void launch_kv_write(const kv_write_params& p, std::int64_t num_tokens, cudaStream_t stream) {
  const std::int64_t num_slots = p.key_cache.dim(0) * p.key_cache.dim(1);
  const std::int64_t row = p.key_cache.dim(2) * p.key_cache.dim(3);
  launch_kernel(kv_write_kernel<E>, dim3(static_cast<unsigned int>(num_tokens)),
                dim3(kv_write_threads), 0, stream, p.key_cache.as<E>(), p.value_cache.as<E>(),
                p.key.as<const E>(), p.value.as<const E>(), p.slot_mapping.as<const std::int32_t>(),
                num_slots, row);
}

}  // namespace

void kv_write(const kv_write_params& p, cudaStream_t stream) {
  const dtype type = p.key_cache.type;
  KERNEL_CHECK("kv_write", is_float_type(type));
  KERNEL_CHECK("kv_write", p.key_cache.rank == 4 && p.value_cache.type == type);
  KERNEL_CHECK("kv_write", p.key_cache.shape == p.value_cache.shape);
  KERNEL_CHECK("kv_write", p.key.type == type && p.value.type == type);
  KERNEL_CHECK("kv_write", p.slot_mapping.type == dtype::i32);
  const std::int64_t num_tokens = p.slot_mapping.numel();
  const std::int64_t row = p.key_cache.dim(2) * p.key_cache.dim(3);
  KERNEL_CHECK("kv_write", p.key.numel() == num_tokens * row && p.value.numel() == p.key.numel());
  KERNEL_CHECK("kv_write", num_tokens < (std::int64_t{1} << 31));
  if (num_tokens == 0) return;
  if (dtype_size(type) == 4) {
    launch_kv_write<std::uint32_t>(p, num_tokens, stream);
  } else {
    launch_kv_write<std::uint16_t>(p, num_tokens, stream);
  }
}

}  // namespace pagedserve::kernels::cuda
