#pragma once
// The backends this build has, by name: "cpu" (always) and "cuda" (where the CUDA toolkit
// was found at build time; it still needs a device at run time). Callers that take a backend
// from a flag or a config key make it here, so none of them depends on CUDA itself.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "kernels/backend.h"

namespace pagedserve::kernels {

// What a backend may trade for speed, from the engine config.
struct backend_options {
  // cpu: int4 products of few rows (decode) from activations quantized to int8 per weight
  // group, where the processor has AVX512-VNNI (the engine key cpu_activation_dtype int8).
  bool int8_activations = false;
};

// Errors: an unknown name or one this build lacks (unsupported, naming the available ones),
// no CUDA device (unsupported, with the driver's reason), a type the backend does not
// compute in (invalid_argument: the CPU computes in float32 only), int8 activations off the
// cpu (unsupported).
[[nodiscard]] result<std::unique_ptr<backend>> make_backend(std::string_view name, dtype type,
                                                            const backend_options& options = {});

[[nodiscard]] std::vector<std::string> available_backends();

// The start-up line's account of the options: "" where none is set, else what the backend
// makes of them on this processor (int8 activations need AVX512-VNNI).
[[nodiscard]] std::string describe_backend_options(const backend_options& options);

// "float32", "bfloat16", "float16" (vLLM's dtype names; also "fp32", "bf16", "fp16", "f32",
// "half"), or nullopt.
[[nodiscard]] std::optional<dtype> parse_compute_type(std::string_view name);
[[nodiscard]] std::string_view compute_type_name(dtype type);

}  // namespace pagedserve::kernels
