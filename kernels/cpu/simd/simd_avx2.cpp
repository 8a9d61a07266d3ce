// The CPU kernels (simd_kernels.inc) for avx2: 8 floats per vector.
#define PAGEDSERVE_SIMD_NAMESPACE avx2
#define PAGEDSERVE_SIMD_NAME "avx2"
#define PAGEDSERVE_SIMD_WIDTH 8
#include "kernels/cpu/simd/simd_kernels.inc"
