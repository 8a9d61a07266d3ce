// Picks the CPU kernel set once: the widest this processor runs, or PAGEDSERVE_CPU_ISA.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernels/cpu/simd/simd_kernels.h"

namespace pagedserve::kernels::cpu::simd {
namespace {

// F16C (fp8 codes to fp32) comes with every AVX2 processor; checked all the same.
bool runs(const kernel_set& set) {
  if (&set == &avx512_vnni::kernels) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("f16c");
  }
  if (&set == &avx512::kernels) {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("f16c");
  }
  if (&set == &avx2::kernels) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
           __builtin_cpu_supports("f16c");
  }
  return true;
}

const kernel_set& pick() {
  __builtin_cpu_init();
  if (const char* forced = std::getenv("PAGEDSERVE_CPU_ISA"); forced != nullptr && *forced) {
    if (const kernel_set* set = kernels_named(forced)) return *set;
    std::fprintf(
        stderr,
        "pagedserve: PAGEDSERVE_CPU_ISA=%s is not avx512_vnni, avx512, avx2 or generic, or this "
        "processor cannot run it; using the best set it runs\n",
        forced);
  }
  for (const kernel_set* set : {&avx512_vnni::kernels, &avx512::kernels, &avx2::kernels}) {
    if (runs(*set)) return *set;
  }
  return generic::kernels;
}

}  // namespace

const kernel_set* kernels_named(std::string_view name) {
  for (const kernel_set* set :
       {&avx512_vnni::kernels, &avx512::kernels, &avx2::kernels, &generic::kernels}) {
    if (set->name == name) return runs(*set) ? set : nullptr;
  }
  return nullptr;
}

const kernel_set& active_kernels() {
  static const kernel_set& chosen = pick();
  return chosen;
}

}  // namespace pagedserve::kernels::cpu::simd
