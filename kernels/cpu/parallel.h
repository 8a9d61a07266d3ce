#pragma once
// When a CPU op's loop is worth an OpenMP team. Small loops run on the calling thread:
// waking the team costs microseconds, and on a busy machine a descheduled team member
// stalls the whole region, so only work of roughly a millisecond or more is split.

#include <cstdint>

namespace pagedserve::kernels::cpu {

// Element-wise and row ops (norms, rope, silu_mul): elements touched.
inline constexpr std::int64_t min_parallel_elements = std::int64_t{1} << 17;
// Matrix products: multiply-adds (rows x out features x in features). Lower than the rest:
// a product streams its weights from memory, and two cores read faster than one. At 2^18 a
// decode step of the demo model (hidden 256) ran every projection but the output layer on
// one thread; at 2^16 its batch-1 decode ran 1.5x faster (bench_cpu_decode, 2-core EPYC).
inline constexpr std::int64_t min_parallel_matmul = std::int64_t{1} << 16;
// Attention: multiply-adds (query rows x heads x keys x head_dim).
inline constexpr std::int64_t min_parallel_flops = std::int64_t{1} << 21;

}  // namespace pagedserve::kernels::cpu
