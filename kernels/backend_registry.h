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

// Errors: an unknown name or one this build lacks (unsupported, naming the available ones),
// no CUDA device (unsupported, with the driver's reason), a type the backend does not
// compute in (invalid_argument: the CPU computes in float32 only).
[[nodiscard]] result<std::unique_ptr<backend>> make_backend(std::string_view name, dtype type);

[[nodiscard]] std::vector<std::string> available_backends();

// "float32", "bfloat16", "float16" (vLLM's dtype names; also "fp32", "bf16", "fp16", "f32",
// "half"), or nullopt.
[[nodiscard]] std::optional<dtype> parse_compute_type(std::string_view name);
[[nodiscard]] std::string_view compute_type_name(dtype type);

}  // namespace pagedserve::kernels
