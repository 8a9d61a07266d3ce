#pragma once
// The CPU backend's hot loops (matrix products, attention) in one source compiled four
// times: for AVX-512 with VNNI (int8 dot products), for AVX-512, for AVX2 + FMA, and for plain
// x86-64 (SSE2). The best set this
// processor runs is picked once at start-up from cpuid, so the binary stays portable and
// never depends on what a BLAS library thinks the processor is (OpenBLAS 0.3.21 takes the
// Xeons we run on for a 2004 Prescott and runs SSE3 kernels there).
//
// PAGEDSERVE_CPU_ISA=avx512_vnni|avx512|avx2|generic forces a set (one the processor runs), for
// tests
// and benchmarks.

#include <cstdint>
#include <string_view>

namespace pagedserve::kernels::cpu::simd {

// out[i * ldo + j] = dot(x[i * ldx ..], w[j * ldw ..]) over k elements, for rows i in [0, m)
// and columns j in [n_begin, n_end): y = x W^T, one panel of W's rows.
struct matmul_args {
  const float* x = nullptr;
  std::int64_t ldx = 0;
  const float* w = nullptr;
  std::int64_t ldw = 0;
  float* out = nullptr;
  std::int64_t ldo = 0;
  std::int64_t m = 0;
  std::int64_t k = 0;
};

// Attention of a few query rows of one sequence, for the query heads of one KV head (a GQA
// group), against the sequence's paged cache. Each key and value row is read once for the
// whole group and every row of the task.
struct attention_task {
  const float* query = nullptr;      // row r, group head g: query + (r * num_heads + g) * head_dim
  float* out = nullptr;              // same layout as query
  const float* key_cache = nullptr;  // [slots, num_kv_heads, head_dim], this kv head's column
  const float* value_cache = nullptr;  // at offset kv_head * head_dim
  const std::int32_t* block_table = nullptr;
  const std::int64_t* num_keys = nullptr;  // per row: keys [0, num_keys[r]) are visible
  std::int64_t num_rows = 0;
  std::int64_t group_size = 0;  // query heads per kv head
  std::int64_t num_heads = 0;   // query heads in all (the query's row stride in heads)
  std::int64_t num_kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t block_size = 0;
  float scale = 1.0F;
  float* scratch = nullptr;  // attention_scratch_floats(...) floats
};

// Positions a prefill task scores at once (a multiple of every set's vector width).
inline constexpr std::int64_t attention_key_tile = 16;

// Scratch of one task: scores per (row, head) padded to whole key tiles, then one key tile.
[[nodiscard]] inline std::int64_t attention_scratch_floats(std::int64_t num_rows,
                                                           std::int64_t group_size,
                                                           std::int64_t max_keys,
                                                           std::int64_t head_dim) {
  const std::int64_t stride =
      (max_keys + attention_key_tile - 1) / attention_key_tile * attention_key_tile;
  return num_rows * group_size * stride + head_dim * attention_key_tile;
}

// A linear layer's quantized W [n, k] (kernels::quantized_weight) against x prepared by the
// op: x's columns in code order (input_order applied), zero padded to ldx (a multiple of
// quant_chunk_codes), and for int4 each 32-column chunk stored as its 16 even columns, then
// its 16 odd ones, the order in which the low and high nibbles of 16 code bytes unpack.
// The padding of x is zero, so codes past k (a half-used last int4 byte, the padding of a
// partial chunk) add nothing.
enum class code_format : std::uint8_t { int4, int8, fp8_e4m3 };
inline constexpr std::int64_t quant_chunk_codes = 32;

struct quantized_matmul_args {
  code_format format = code_format::int4;
  const float* x = nullptr;  // [m, ldx], prepared as above
  std::int64_t ldx = 0;
  const float* x_group_sums = nullptr;  // [m, num_groups]: sum of x over each group (int only)
  float* out = nullptr;
  std::int64_t ldo = 0;
  std::int64_t m = 0;                   // rows of x
  std::int64_t n = 0;                   // rows of W (out features)
  std::int64_t k = 0;                   // columns of W (in features)
  const std::uint8_t* codes = nullptr;  // row n at codes + n * code_stride
  std::int64_t code_stride = 0;         // int4: ceil(k / 2); int8 and fp8: k
  const float* scales = nullptr;        // [ceil(n / block_rows), num_groups]
  const std::uint8_t* zeros = nullptr;  // [n, num_groups] (int only)
  std::int64_t group_size = 0;
  std::int64_t num_groups = 0;
  std::int64_t block_rows = 1;
  // int4 products from x quantized to int8 (kernel sets with int4_times_int8_x; the op's
  // int8 activations, for few rows of x, groups of a multiple of 64 columns or one group):
  // x ~ x_int8_scales[row, group] * q, q = round(x / scale) in [-127, 127], scale = max |x|
  // over the group / 127, as llama.cpp's Q8_0 activations. Laid out per step of 64 columns
  // (two chunks, 32 code bytes) as the products read them: byte p of a step meets the low
  // nibble of the step's code byte p (p < 32) or the high nibble of code byte p - 32. Rows
  // ldx64 bytes apart, ldx64 = ldx rounded up to 64 (the padding is zero).
  const std::int8_t* x_int8 = nullptr;
  const float* x_int8_scales = nullptr;  // [m, num_groups]
};

// int4 W in the CPU's tiles (kernels/cpu/int4_tiles.h) times x in int8 limbs: x ~ scale *
// (l0 + l1 / 254 + l2 / 254^2 + l3 / 254^3) per row and group of W, num_limbs of them. One
// limb is llama.cpp's Q8_0 activations (scale max |x| / 127); four, with a power-of-two
// scale, carry x to under 2^-30 of the group's max |x| (fp32 rounds each element to 2^-24 of
// itself): the exact mode. Every limb's products and its zero-point term are exact in int32.
struct int4_tiles_args {
  const std::uint8_t* tiles = nullptr;  // tile t at tiles + t * tile_bytes
  std::int64_t tile_bytes = 0;
  std::int64_t group_bytes = 0;
  std::int64_t group_size = 0;  // columns per group (k where one group)
  std::int64_t num_groups = 0;
  std::int64_t m = 0;                       // rows of x
  std::int64_t n = 0;                       // out features
  std::int64_t k = 0;                       // in features, a multiple of 8
  int num_limbs = 1;                        // 1 or 4
  const std::int8_t* limbs = nullptr;       // [num_limbs, m, k], in code order
  const std::int32_t* limb_sums = nullptr;  // [num_limbs, m, num_groups]
  const float* x_scales = nullptr;          // [m, num_groups]
  float* out = nullptr;
  std::int64_t ldo = 0;
};

// x (rows [row_begin, row_end) of [m, k], in code order) into the limbs, sums and scales of
// int4_tiles_args.
struct int8_limbs_args {
  const float* x = nullptr;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t group_size = 0;
  std::int64_t num_groups = 0;
  int num_limbs = 1;
  std::int8_t* limbs = nullptr;
  std::int32_t* limb_sums = nullptr;
  float* x_scales = nullptr;
};

using matmul_panel_fn = void (*)(const matmul_args& a, std::int64_t n_begin, std::int64_t n_end);
using attend_fn = void (*)(const attention_task& t);
// out columns [n_begin, n_end) computed from the codes directly (a scale per group factored
// out of the inner loop). Only where every group but the last is whole 16-byte chunks of
// codes: group_size a multiple of 32 (int4) or 16 (int8, fp8), or one group.
using quantized_matmul_panel_fn = void (*)(const quantized_matmul_args& a, std::int64_t n_begin,
                                           std::int64_t n_end);
// W's rows [n_begin, n_end) in fp32, in the prepared x's column order, into
// dst[(n - n_begin) * ldx + column]; any group size. dst times the prepared x is the layer.
using dequantize_panel_fn = void (*)(const quantized_matmul_args& a, std::int64_t n_begin,
                                     std::int64_t n_end, float* dst);

struct kernel_set {
  std::string_view name;
  matmul_panel_fn matmul_panel = nullptr;
  attend_fn attend = nullptr;
  quantized_matmul_panel_fn quantized_matmul_panel = nullptr;
  dequantize_panel_fn dequantize_panel = nullptr;
  // quantized_matmul_panel computes int4 products from quantized_matmul_args::x_int8
  // where the op provides it.
  bool int4_times_int8_x = false;
  // Tiles [tile_begin, tile_end) of out, and x into limbs: sets with int8 dot products only
  // (nullptr elsewhere: such sets read int4 in the host layout).
  void (*int4_tiles)(const int4_tiles_args& a, std::int64_t tile_begin,
                     std::int64_t tile_end) = nullptr;
  void (*int8_limbs)(const int8_limbs_args& a, std::int64_t row_begin,
                     std::int64_t row_end) = nullptr;
};

// The set picked for this processor (or PAGEDSERVE_CPU_ISA), decided on the first call.
[[nodiscard]] const kernel_set& active_kernels();
// A named set, or nullptr where this processor cannot run it (tests compare all of them).
[[nodiscard]] const kernel_set* kernels_named(std::string_view name);

// One entry per compilation of simd_kernels.inc.
namespace avx512 {
extern const kernel_set kernels;
}
namespace avx512_vnni {
extern const kernel_set kernels;
}
namespace avx2 {
extern const kernel_set kernels;
}
namespace generic {
extern const kernel_set kernels;
}

}  // namespace pagedserve::kernels::cpu::simd
