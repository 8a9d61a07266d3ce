// linear with int4 W in the CPU's tiles (int4_tiles.h): x prepared once per call into int8
// limbs (rows split across the team), then the tiles split across it, two at a time.

#include <cstddef>
#include <vector>

#include "kernels/check.h"
#include "kernels/cpu/int4_tiles.h"
#include "kernels/cpu/linear_op.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd_kernels.h"

namespace pagedserve::kernels::cpu {
namespace {

// Rows of x up to which the int8-activation mode takes one limb: decode batches. Past it
// (prefill chunks) x keeps its fp32-grade limbs, as the host layout's kernels keep fp32 x
// from 16 rows.
constexpr std::int64_t max_int8_activation_rows = 64;
constexpr int exact_limbs = 4;
constexpr std::int64_t tiles_per_task = 2;
// Multiply-adds from which a call starts the OpenMP team: 4x the dense linear's
// (min_parallel_matmul), as a tile's products cost about a quarter of fp32's and, on the
// 2-core VM we measured (AMD EPYC), starting the team cost as much as a MoE expert's
// 512 x 1024 product at one row (decode of qwen3-moe-490m: 236-248 tok/s exact with 2^18,
// 307-370 with 2^20 and 2^22, int8 activations 288-293 against 296-345).
constexpr std::int64_t min_parallel_int4_tiles = std::int64_t{1} << 20;
// Elements of x from which its preparation is split across the team.
constexpr std::int64_t min_parallel_prep = std::int64_t{1} << 15;

// The prepared x, per calling thread: kept across calls, as fresh allocations of this size
// would fault their pages in again every time. 64-byte aligned pieces.
struct limb_scratch {
  std::vector<std::byte> bytes;

  std::byte* reserve(std::int64_t size) {
    if (static_cast<std::int64_t>(bytes.size()) < size + 64) {
      bytes.resize(static_cast<std::size_t>(size + 64));
    }
    const auto address = reinterpret_cast<std::uintptr_t>(bytes.data());
    return bytes.data() + ((64 - address % 64) % 64);
  }
};

std::int64_t aligned(std::int64_t size) { return (size + 63) / 64 * 64; }

void check_tiles_weight(const quantized_weight& w, const simd::kernel_set& kernels) {
  KERNEL_CHECK("linear (int4 tiles: a kernel set with int8 dot products)",
               kernels.int4_tiles != nullptr && kernels.int8_limbs != nullptr);
  KERNEL_CHECK("linear", w.format == weight_format::int4 && w.block_rows == 1);
  KERNEL_CHECK("linear", w.out_features > 0 && w.in_features > 0 && w.group_size > 0);
  KERNEL_CHECK("linear", w.in_features % int4_unit_codes == 0);
  KERNEL_CHECK("linear", w.num_groups() == 1 || w.group_size % int4_unit_codes == 0);
  const int4_tiles_layout l = int4_tiles_layout_of(w);
  KERNEL_CHECK("linear",
               w.codes.type == dtype::u8 && w.codes.numel() == l.num_tiles * l.tile_bytes);
  check_input_order(w);
}

// Rows [begin, end) of x into prep's limbs, through input_order first where set (into
// prep.x, the scratch's gather space).
void prepare_rows(const linear_params& p, const simd::int8_limbs_args& prep,
                  const simd::kernel_set& kernels, std::int64_t begin, std::int64_t end) {
  const quantized_weight& w = p.quantized;
  const std::int64_t k = w.in_features;
  if (!w.input_order.empty()) {
    const float* x = p.x.as<const float>();
    const std::int32_t* order = w.input_order.as<const std::int32_t>();
    auto* gathered = const_cast<float*>(prep.x);
    for (std::int64_t r = begin; r < end; ++r) {
      for (std::int64_t c = 0; c < k; ++c) gathered[r * k + c] = x[r * k + order[c]];
    }
  }
  kernels.int8_limbs(prep, begin, end);
}

}  // namespace

void int4_tiles_linear(const linear_params& p, const simd::kernel_set& kernels,
                       const quantized_linear_options& options) {
  const quantized_weight& w = p.quantized;
  check_tiles_weight(w, kernels);
  KERNEL_CHECK("linear", p.x.type == dtype::f32 && p.out.type == dtype::f32);
  KERNEL_CHECK("linear", p.x.numel() % w.in_features == 0);
  const std::int64_t m = p.x.numel() / w.in_features;
  const std::int64_t k = w.in_features;
  KERNEL_CHECK("linear", p.out.numel() == m * w.out_features);
  if (m == 0) return;
  const int limbs =
      options.int8_activations && kernels.int4_times_int8_x && m <= max_int8_activation_rows
          ? 1
          : exact_limbs;
  const std::int64_t groups = w.num_groups();
  const bool gathers = !w.input_order.empty();
  static thread_local limb_scratch scratch;
  const std::int64_t limb_bytes = aligned(limbs * m * k);
  const std::int64_t sum_bytes = aligned(limbs * m * groups * 4);
  const std::int64_t scale_bytes = aligned(m * groups * 4);
  std::byte* base =
      scratch.reserve(limb_bytes + sum_bytes + scale_bytes + (gathers ? m * k * 4 : 0));

  const int4_tiles_layout l = int4_tiles_layout_of(w);
  simd::int8_limbs_args prep;
  prep.x = gathers ? reinterpret_cast<const float*>(base + limb_bytes + sum_bytes + scale_bytes)
                   : p.x.as<const float>();
  prep.m = m;
  prep.k = k;
  prep.group_size = groups == 1 ? k : w.group_size;
  prep.num_groups = groups;
  prep.num_limbs = limbs;
  prep.limbs = reinterpret_cast<std::int8_t*>(base);
  prep.limb_sums = reinterpret_cast<std::int32_t*>(base + limb_bytes);
  prep.x_scales = reinterpret_cast<float*>(base + limb_bytes + sum_bytes);

  simd::int4_tiles_args a;
  a.tiles = w.codes.as<const std::uint8_t>();
  a.tile_bytes = l.tile_bytes;
  a.group_bytes = l.group_bytes;
  a.group_size = prep.group_size;
  a.num_groups = groups;
  a.m = m;
  a.n = w.out_features;
  a.k = k;
  a.num_limbs = limbs;
  a.limbs = prep.limbs;
  a.limb_sums = prep.limb_sums;
  a.x_scales = prep.x_scales;
  a.out = p.out.as<float>();
  a.ldo = w.out_features;

  const std::int64_t num_tasks = (l.num_tiles + tiles_per_task - 1) / tiles_per_task;
  const bool parallel = m * w.out_features * k >= min_parallel_int4_tiles;
  // Decode's few rows are prepared before the team starts (a worksharing loop and its
  // barrier cost more than they do); prefill's rows are split across it.
  const bool parallel_prep = parallel && m * k >= min_parallel_prep;
  if (!parallel_prep) prepare_rows(p, prep, kernels, 0, m);
  if (!parallel) {  // no OpenMP call at all: even a team of one costs futex calls in libgomp
    kernels.int4_tiles(a, 0, l.num_tiles);
  } else {
#pragma omp parallel
    {
      if (parallel_prep) {
#pragma omp for schedule(static)
        for (std::int64_t r = 0; r < m; ++r) prepare_rows(p, prep, kernels, r, r + 1);
      }
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t task = 0; task < num_tasks; ++task) {
        const std::int64_t end = (task + 1) * tiles_per_task;
        kernels.int4_tiles(a, task * tiles_per_task, end < l.num_tiles ? end : l.num_tiles);
      }
    }
  }
  if (!p.bias.empty()) add_bias(p, m, w.out_features);
}

}  // namespace pagedserve::kernels::cpu
