#include "kernels/backend_registry.h"

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/simd/simd_kernels.h"
#if PAGEDSERVE_HAVE_CUDA_BACKEND
#include "kernels/cuda/cuda_backend.h"
#endif

namespace pagedserve::kernels {

std::vector<std::string> available_backends() {
#if PAGEDSERVE_HAVE_CUDA_BACKEND
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

result<std::unique_ptr<backend>> make_backend(std::string_view name, dtype type,
                                              const backend_options& options) {
  if (name == "cpu") {
    if (type != dtype::f32) {
      return make_error(
          error_code::invalid_argument,
          "the cpu backend computes in float32 only, not " + std::string(compute_type_name(type)));
    }
    return make_cpu_backend({options.int8_activations});
  }
  if (options.int8_activations) {
    return make_error(error_code::unsupported,
                      "int8 activations (cpu_activation_dtype int8) are a cpu backend option");
  }
#if PAGEDSERVE_HAVE_CUDA_BACKEND
  if (name == "cuda") return make_cuda_backend({type, 0});
#endif
  std::string names;
  for (const std::string& n : available_backends()) names += (names.empty() ? "" : ", ") + n;
  return make_error(
      error_code::unsupported,
      "backend '" + std::string(name) + "' is not in this build (available: " + names + ")");
}

std::string describe_backend_options(const backend_options& options) {
  if (!options.int8_activations) return "";
  if (cpu::simd::active_kernels().int4_times_int8_x) {
    return "cpu_activation_dtype int8: int4 decode products take activations quantized to int8 "
           "per group (AVX512-VNNI)";
  }
  return "cpu_activation_dtype int8 asked for, but this processor lacks AVX512-VNNI: "
         "activations stay fp32";
}

std::optional<dtype> parse_compute_type(std::string_view name) {
  if (name == "float32" || name == "fp32" || name == "f32" || name == "float") return dtype::f32;
  if (name == "bfloat16" || name == "bf16") return dtype::bf16;
  if (name == "float16" || name == "fp16" || name == "f16" || name == "half") return dtype::f16;
  return std::nullopt;
}

std::string_view compute_type_name(dtype type) {
  switch (type) {
    case dtype::f32:
      return "float32";
    case dtype::bf16:
      return "bfloat16";
    case dtype::f16:
      return "float16";
    case dtype::i32:
    case dtype::u8:
      break;
  }
  return "int32";
}

}  // namespace pagedserve::kernels
