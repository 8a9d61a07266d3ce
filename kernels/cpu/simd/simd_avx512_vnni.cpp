// The CPU kernels (simd_kernels.inc) for avx512 with AVX512-VNNI and AVX512-BW: the avx512
// set, except that int4 codes meet x through 8-bit integer dot products
// (simd_quant_vnni.inc).
#define PAGEDSERVE_SIMD_NAMESPACE avx512_vnni
#define PAGEDSERVE_SIMD_NAME "avx512_vnni"
#define PAGEDSERVE_SIMD_WIDTH 16
#define PAGEDSERVE_SIMD_INT8_DOT 1
#include "kernels/cpu/simd/simd_kernels.inc"
