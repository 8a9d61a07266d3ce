// kv_write: key_cache[slot_mapping[t]] = key[t] and the same for values, for a cache laid out
// [num_blocks, block_size, num_kv_heads, head_dim] (slot = block * block_size + offset). A
// cache of fp8 e4m3 codes (u8, kv_cache_dtype fp8_e4m3) stores e4m3(x * (1 / scale)), the
// CPU backend's encode_e4m3_row to the bit.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/fp8_e4m3.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int kv_write_threads = 256;

// How an element goes into the cache: as it is (E, an unsigned integer as wide as the
// element), or as the e4m3 code of x * inverse.
template <class E>
struct copy_element {
  __device__ E operator()(E x) const { return x; }
};
template <class T>
struct encode_e4m3 {
  float inverse;
  __device__ std::uint8_t operator()(T x) const { return float_to_e4m3(to_float(x) * inverse); }
};

// One block per token. `row` is num_kv_heads * head_dim elements.
template <class In, class Out, class Convert>
__global__ void kv_write_kernel(Out* key_cache, Out* value_cache, const In* key, const In* value,
                                const std::int32_t* slot_mapping, std::int64_t num_slots,
                                std::int64_t row, Convert key_convert, Convert value_convert) {
  const std::int64_t token = blockIdx.x;
  const std::int32_t slot = slot_mapping[token];
  DEVICE_CHECK("kv_write", slot >= 0 && slot < num_slots);
  const std::int64_t dst = static_cast<std::int64_t>(slot) * row;
  const std::int64_t src = token * row;
  for (std::int64_t i = threadIdx.x; i < row; i += blockDim.x) {
    key_cache[dst + i] = key_convert(key[src + i]);
    value_cache[dst + i] = value_convert(value[src + i]);
  }
}

template <class In, class Out, class Convert>
void launch_kv_write(const kv_write_params& p, std::int64_t num_tokens, Convert key_convert,
                     Convert value_convert, cudaStream_t stream) {
  const std::int64_t num_slots = p.key_cache.dim(0) * p.key_cache.dim(1);
  const std::int64_t row = p.key_cache.dim(2) * p.key_cache.dim(3);
  launch_kernel(kv_write_kernel<In, Out, Convert>, dim3(static_cast<unsigned int>(num_tokens)),
                dim3(kv_write_threads), 0, stream, p.key_cache.as<Out>(), p.value_cache.as<Out>(),
                p.key.as<const In>(), p.value.as<const In>(),
                p.slot_mapping.as<const std::int32_t>(), num_slots, row, key_convert,
                value_convert);
}

void kv_write_e4m3(const kv_write_params& p, std::int64_t num_tokens, cudaStream_t stream) {
  KERNEL_CHECK("kv_write", p.value_cache.type == dtype::u8);
  KERNEL_CHECK("kv_write", p.key.type == p.value.type);
  KERNEL_CHECK("kv_write", p.key_scale > 0.0F && p.value_scale > 0.0F);
  dispatch_float_type("kv_write", p.key.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kv_write<T, std::uint8_t>(p, num_tokens, encode_e4m3<T>{1.0F / p.key_scale},
                                     encode_e4m3<T>{1.0F / p.value_scale}, stream);
  });
}

}  // namespace

void kv_write(const kv_write_params& p, cudaStream_t stream) {
  const dtype type = p.key_cache.type;
  KERNEL_CHECK("kv_write", p.key_cache.rank == 4 && p.key_cache.shape == p.value_cache.shape);
  KERNEL_CHECK("kv_write", p.slot_mapping.type == dtype::i32);
  const std::int64_t num_tokens = p.slot_mapping.numel();
  const std::int64_t row = p.key_cache.dim(2) * p.key_cache.dim(3);
  KERNEL_CHECK("kv_write", p.key.numel() == num_tokens * row && p.value.numel() == p.key.numel());
  KERNEL_CHECK("kv_write", num_tokens < (std::int64_t{1} << 31));
  if (type == dtype::u8) {
    if (num_tokens > 0) kv_write_e4m3(p, num_tokens, stream);
    return;
  }
  KERNEL_CHECK("kv_write", is_float_type(type) && p.value_cache.type == type);
  KERNEL_CHECK("kv_write", p.key.type == type && p.value.type == type);
  if (num_tokens == 0) return;
  if (dtype_size(type) == 4) {
    launch_kv_write<std::uint32_t, std::uint32_t>(p, num_tokens, copy_element<std::uint32_t>{},
                                                  copy_element<std::uint32_t>{}, stream);
  } else {
    launch_kv_write<std::uint16_t, std::uint16_t>(p, num_tokens, copy_element<std::uint16_t>{},
                                                  copy_element<std::uint16_t>{}, stream);
  }
}

}  // namespace pagedserve::kernels::cuda
