// The CPU kernels (simd_kernels.inc) for avx512: 16 floats per vector.
#define PAGEDSERVE_SIMD_NAMESPACE avx512
#define PAGEDSERVE_SIMD_NAME "avx512"
#define PAGEDSERVE_SIMD_WIDTH 16
#include "kernels/cpu/simd/simd_kernels.inc"
