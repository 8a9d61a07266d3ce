// sample: the host sampler's pipeline (runtime/sampling/sampler.h) on the device, one block
// of 1,024 threads per logits row. Thread t owns the contiguous ids [t * chunk, (t+1) * chunk)
// and always walks them in ascending order, so "the lowest ids among equals" is a running
// count plus a block prefix sum. Per row, each stage only when enabled:
//
//   greedy        argmax (NaN as -inf, lowest id on ties); the draw is still consumed
//   max           M = max logit; weights w = exp((logit - M) / temperature) with the host's
//                 exp (fast_exp.cuh), so they are equal to the bit; the max weighs 1
//                 (M = +inf: the +inf tokens weigh 1, the rest 0; M = -inf: token 0)
//   top-k         radix select of the k-th largest logit over order-preserving 32-bit keys,
//                 8 bits a pass (4 passes of 256-bin counts); ties at the k-th value are kept
//                 in ascending id order
//   top-p         the same select over the weights' bits with 256-bin masses (fp64), finding
//                 the weight at which the mass of the larger ones reaches top_p * (mass kept
//                 by top-k); ties there are kept, ascending id, until the mass is reached
//   min-p         w >= min_p (the max weighs 1)
//   draw          u = philox_uniform(seed, sequence_index, draw); target = u * (kept mass);
//                 each thread's kept mass, a block prefix sum, and the thread whose range
//                 holds the target walks it (ascending id) to the first token whose running
//                 sum exceeds it. Sums are fp64 in an order of the block's choosing, so a
//                 target within fp64 rounding of a boundary may fall on either neighbour, as
//                 the host sampler documents; otherwise the pick is the host sampler's.

#include <climits>
#include <cmath>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/arg_max.cuh"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/block_scan.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/fast_exp.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/philox.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int sample_threads = 1024;
constexpr int radix_bins = 256;
constexpr float greedy_temperature = 1e-5F;  // sampling_params' k_greedy_temperature_epsilon

struct int_sum_op {
  __device__ int operator()(int a, int b) const { return a + b; }
};
struct double_sum_op {
  __device__ double operator()(double a, double b) const { return a + b; }
};
struct int_max_op {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

// Shared state of one row's block.
struct sample_shared {
  float float_scratch[32];
  int int_scratch[32];
  double double_scratch[32];
  arg_max arg_scratch[32];
  unsigned int counts[radix_bins];
  double masses[radix_bins];
  // Radix select results, written by thread 0 between barriers.
  unsigned int prefix;
  int remaining;
  double mass_above;
  bool found;
  int pick;
};

// Order-preserving 32-bit key of a logit; 0 for NaN and -inf, which top-k never keeps.
__device__ __forceinline__ unsigned int logit_key(float logit) {
  if (isnan(logit) || logit == -INFINITY) return 0U;
  const unsigned int bits = __float_as_uint(logit);
  return (bits & 0x80000000U) != 0 ? ~bits : bits | 0x80000000U;
}

struct row_view {
  const float* logits;
  int begin;  // this thread's ids [begin, end)
  int end;
  float max_logit;
  float inverse_temperature;

  // The unnormalised probability: the host sampler's weigher, to the bit.
  [[nodiscard]] __device__ float weight(float logit) const {
    if (max_logit == INFINITY) return logit == INFINITY ? 1.0F : 0.0F;
    return exp_nonpositive(__fmul_rn(__fsub_rn(logit, max_logit), inverse_temperature));
  }
};

// Which tokens survive top-k and top-p: thresholds plus, for ties at a threshold, how many
// of the tied tokens (lowest ids first) are kept and how many precede this thread's chunk.
struct kept_set {
  bool top_k = false;
  unsigned int key_threshold = 0;
  int key_ties_kept = 0;
  int key_ties_before = 0;
  bool top_p = false;
  float weight_threshold = 0.0F;
  int weight_ties_kept = 0;
  int weight_ties_before = 0;
  float min_p = 0.0F;
};

// Walks one thread's chunk in id order and tells, token by token, which are kept: a cursor,
// because tie ranks count the tied tokens seen so far.
class kept_cursor {
 public:
  __device__ explicit kept_cursor(const kept_set& k)
      : k_(k), key_ties_seen_(k.key_ties_before), weight_ties_seen_(k.weight_ties_before) {}

  // By top-k alone (what top-p's mass counts).
  [[nodiscard]] __device__ bool kept_by_top_k(float logit) {
    if (!k_.top_k) return true;
    const unsigned int key = logit_key(logit);
    if (key > k_.key_threshold) return true;
    if (key != k_.key_threshold || key == 0U) return false;
    return key_ties_seen_++ < k_.key_ties_kept;
  }

  // By every stage; `w` is the token's weight.
  [[nodiscard]] __device__ bool kept(float logit, float w) {
    if (!kept_by_top_k(logit)) return false;
    if (k_.top_p && w < k_.weight_threshold) return false;
    if (k_.top_p && w == k_.weight_threshold && weight_ties_seen_++ >= k_.weight_ties_kept) {
      return false;
    }
    return w >= k_.min_p;
  }

 private:
  kept_set k_;
  int key_ties_seen_;
  int weight_ties_seen_;
};

__device__ void write_token(std::int32_t* token_ids, int token) {
  if (threadIdx.x == 0) token_ids[blockIdx.x] = token;
}

__device__ int greedy(const row_view& r, sample_shared& sh) {
  arg_max best = arg_max_identity();
  const arg_max_op op;
  for (int i = r.begin; i < r.end; ++i) {
    const float v = r.logits[i];
    best = op(best, arg_max{isnan(v) ? -INFINITY : v, i});
  }
  best = block_reduce(best, op, arg_max_identity(), sh.arg_scratch);
  return best.value == -INFINITY ? 0 : best.index;
}

// The 8 bits at `shift` of the k-th largest key (counting from `remaining` within the keys
// that match `prefix` on the bits above), over 256-bin counts. Thread 0 updates sh.
__device__ void select_key_digit(const row_view& r, sample_shared& sh, int shift,
                                 unsigned int mask) {
  for (int b = static_cast<int>(threadIdx.x); b < radix_bins; b += sample_threads) sh.counts[b] = 0;
  __syncthreads();
  const unsigned int prefix = sh.prefix;
  for (int i = r.begin; i < r.end; ++i) {
    const unsigned int key = logit_key(r.logits[i]);
    if (key != 0U && (key & mask) == prefix) atomicAdd(&sh.counts[(key >> shift) & 0xFFU], 1U);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int above = 0;
    for (int d = radix_bins - 1; d >= 0; --d) {
      const int count = static_cast<int>(sh.counts[d]);
      if (above + count >= sh.remaining) {
        sh.prefix |= static_cast<unsigned int>(d) << shift;
        sh.remaining -= above;
        break;
      }
      above += count;
    }
  }
  __syncthreads();
}

// Number of tokens before this thread's chunk (in id order) for which `is_tie` holds.
template <class Pred>
__device__ int ties_before(const row_view& r, sample_shared& sh, Pred is_tie) {
  int mine = 0;
  for (int i = r.begin; i < r.end; ++i) mine += is_tie(i) ? 1 : 0;
  int total = 0;
  return block_exclusive_scan(mine, sh.int_scratch, &total);
}

__device__ void apply_top_k(const row_view& r, int top_k, sample_shared& sh, kept_set& k) {
  int finite = 0;
  for (int i = r.begin; i < r.end; ++i) finite += logit_key(r.logits[i]) != 0U ? 1 : 0;
  finite = block_reduce(finite, int_sum_op{}, 0, sh.int_scratch);
  if (finite <= top_k) return;  // every candidate is kept
  if (threadIdx.x == 0) {
    sh.prefix = 0U;
    sh.remaining = top_k;
  }
  __syncthreads();
  unsigned int mask = 0U;
  for (int shift = 24; shift >= 0; shift -= 8) {
    select_key_digit(r, sh, shift, mask);
    mask |= 0xFFU << shift;
  }
  k.top_k = true;
  k.key_threshold = sh.prefix;
  k.key_ties_kept = sh.remaining;
  const unsigned int threshold = k.key_threshold;
  k.key_ties_before =
      ties_before(r, sh, [&](int i) { return logit_key(r.logits[i]) == threshold; });
}

// Like select_key_digit, over the weights' bits with masses, for the tokens top-k keeps.
__device__ void select_weight_digit(const row_view& r, const kept_set& k, double target,
                                    sample_shared& sh, int shift, unsigned int mask) {
  for (int b = static_cast<int>(threadIdx.x); b < radix_bins; b += sample_threads) {
    sh.masses[b] = 0.0;
  }
  __syncthreads();
  const unsigned int prefix = sh.prefix;
  kept_cursor cursor(k);
  for (int i = r.begin; i < r.end; ++i) {
    const float logit = r.logits[i];
    if (!cursor.kept_by_top_k(logit)) continue;
    const float w = r.weight(logit);
    const unsigned int bits = __float_as_uint(w);
    if (w > 0.0F && (bits & mask) == prefix) {
      atomicAdd(&sh.masses[(bits >> shift) & 0xFFU], static_cast<double>(w));
    }
  }
  __syncthreads();
  if (threadIdx.x == 0 && sh.found) {
    double above = 0.0;
    bool selected = false;
    for (int d = radix_bins - 1; d >= 0 && !selected; --d) {
      if (sh.mass_above + above + sh.masses[d] >= target) {
        sh.prefix |= static_cast<unsigned int>(d) << shift;
        sh.mass_above += above;
        selected = true;
      } else {
        above += sh.masses[d];
      }
    }
    sh.found = selected;  // not reached (rounding): the nucleus is every token
  }
  __syncthreads();
}

__device__ void apply_top_p(const row_view& r, float top_p, sample_shared& sh, kept_set& k) {
  double mass = 0.0;
  {
    kept_cursor cursor(k);
    for (int i = r.begin; i < r.end; ++i) {
      const float logit = r.logits[i];
      if (cursor.kept_by_top_k(logit)) mass += static_cast<double>(r.weight(logit));
    }
  }
  mass = block_reduce(mass, double_sum_op{}, 0.0, sh.double_scratch);
  const double target = static_cast<double>(top_p) * mass;
  if (threadIdx.x == 0) {
    sh.prefix = 0U;
    sh.mass_above = 0.0;
    sh.found = true;
  }
  __syncthreads();
  unsigned int mask = 0U;
  for (int shift = 24; shift >= 0; shift -= 8) {
    select_weight_digit(r, k, target, sh, shift, mask);
    mask |= 0xFFU << shift;
  }
  const float threshold = __uint_as_float(sh.prefix);
  if (!sh.found || !(threshold > 0.0F)) return;
  // Tokens tied at the threshold, lowest ids first, until the mass reaches the target.
  const double needed = ceil((target - sh.mass_above) / static_cast<double>(threshold));
  k.top_p = true;
  k.weight_threshold = threshold;
  k.weight_ties_kept = needed < 1.0 ? 1 : static_cast<int>(fmin(needed, 2147483647.0));
  kept_cursor cursor(k);
  k.weight_ties_before = ties_before(r, sh, [&](int i) {
    const float logit = r.logits[i];
    return cursor.kept_by_top_k(logit) && r.weight(logit) == threshold;
  });
}

__device__ int draw_token(const row_view& r, const kept_set& k, double u, sample_shared& sh) {
  double own = 0.0;
  int last_positive = -1;
  {
    kept_cursor cursor(k);
    for (int i = r.begin; i < r.end; ++i) {
      const float logit = r.logits[i];
      const float w = r.weight(logit);
      if (!cursor.kept(logit, w)) continue;
      own += static_cast<double>(w);
      if (w > 0.0F) last_positive = i;
    }
  }
  double total = 0.0;
  const double base = block_exclusive_scan(own, sh.double_scratch, &total);
  const int last_overall = block_reduce(last_positive, int_max_op{}, -1, sh.int_scratch);
  if (threadIdx.x == 0) sh.pick = INT_MAX;
  __syncthreads();
  const double target = u * total;
  if (own > 0.0 && base <= target && target < base + own) {
    int pick = last_positive;  // the running sum fell short by rounding
    double running = base;
    kept_cursor cursor(k);
    for (int i = r.begin; i < r.end; ++i) {
      const float logit = r.logits[i];
      const float w = r.weight(logit);
      if (!cursor.kept(logit, w)) continue;
      running += static_cast<double>(w);
      if (w > 0.0F && running > target) {
        pick = i;
        break;
      }
    }
    atomicMin(&sh.pick, pick);
  }
  __syncthreads();
  // No range holds the target: it rounded up to the total. The last token that can be drawn.
  return sh.pick != INT_MAX ? sh.pick : (last_overall >= 0 ? last_overall : 0);
}

__global__ void __launch_bounds__(sample_threads)
    sample_kernel(std::int32_t* token_ids, const float* logits, const sampling_row* rows,
                  std::int64_t vocab) {
  __shared__ sample_shared sh;
  const sampling_row params = rows[blockIdx.x];
  const auto chunk = static_cast<int>((vocab + sample_threads - 1) / sample_threads);
  row_view r{};
  r.logits = logits + static_cast<std::int64_t>(blockIdx.x) * vocab;
  r.begin = static_cast<int>(min(vocab, static_cast<std::int64_t>(threadIdx.x) * chunk));
  r.end = static_cast<int>(min(vocab, static_cast<std::int64_t>(r.begin) + chunk));
  if (params.temperature < greedy_temperature) {
    write_token(token_ids, greedy(r, sh));
    return;
  }
  float m = -INFINITY;
  for (int i = r.begin; i < r.end; ++i) m = r.logits[i] > m ? r.logits[i] : m;
  r.max_logit = block_reduce(m, max_op{}, -INFINITY, sh.float_scratch);
  if (r.max_logit == -INFINITY) {  // every logit NaN or -inf: the documented fallback
    write_token(token_ids, 0);
    return;
  }
  r.inverse_temperature = 1.0F / params.temperature;
  kept_set k;
  if (params.top_k > 0 && params.top_k < vocab) apply_top_k(r, params.top_k, sh, k);
  if (params.top_p < 1.0F) apply_top_p(r, params.top_p, sh, k);
  k.min_p = params.min_p;
  const double u = philox_uniform(params.seed, params.sequence_index, params.draw);
  write_token(token_ids, draw_token(r, k, u, sh));
}

}  // namespace

void sample(const sample_params& p, cudaStream_t stream) {
  KERNEL_CHECK("sample", p.logits.type == dtype::f32 && p.logits.rank == 2);
  KERNEL_CHECK("sample", p.token_ids.type == dtype::i32);
  KERNEL_CHECK("sample", p.rows.type == dtype::i32 && p.rows.rank == 2);
  const std::int64_t num_rows = p.logits.dim(0);
  const std::int64_t vocab = p.logits.dim(1);
  KERNEL_CHECK("sample", p.token_ids.numel() == num_rows && p.rows.dim(0) == num_rows);
  KERNEL_CHECK("sample", p.rows.dim(1) == sampling_row_words);
  KERNEL_CHECK("sample", vocab > 0 && vocab < INT_MAX);
  KERNEL_CHECK("sample", reinterpret_cast<std::uintptr_t>(p.rows.data) % 8 == 0);
  if (num_rows == 0) return;
  launch_kernel(sample_kernel, dim3(static_cast<unsigned int>(num_rows)), dim3(sample_threads), 0,
                stream, p.token_ids.as<std::int32_t>(), p.logits.as<const float>(),
                static_cast<const sampling_row*>(p.rows.data), vocab);
}

}  // namespace pagedserve::kernels::cuda
