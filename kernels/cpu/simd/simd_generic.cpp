// The CPU kernels (simd_kernels.inc) for generic: 4 floats per vector.
#define PAGEDSERVE_SIMD_NAMESPACE generic
#define PAGEDSERVE_SIMD_NAME "generic"
#define PAGEDSERVE_SIMD_WIDTH 4
#include "kernels/cpu/simd/simd_kernels.inc"
