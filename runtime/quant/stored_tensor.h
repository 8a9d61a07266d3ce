#pragma once
// stored_tensor: typed, checked reads of one quantized checkpoint tensor (int32 words,
// float scales of whatever dtype the file's header gives: trap 5 of QUANTIZATION.md, one
// dtype per tensor, never one per file). Every error names the file, the tensor and what
// was expected.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "runtime/model/checkpoint_files.h"

namespace pagedserve::quant {

// Looks `name` up and checks its dtype is one of `dtypes` ("I32", or "F32|BF16|F16" ...)
// and its shape is `shape`.
[[nodiscard]] result<located_tensor> find_checked(checkpoint_files& files, const std::string& name,
                                                  std::initializer_list<std::string_view> dtypes,
                                                  const std::vector<std::int64_t>& shape);

// All elements of an I32 tensor (little-endian, read with memcpy: mappings need not be
// aligned).
[[nodiscard]] std::vector<std::int32_t> read_i32(const located_tensor& t);
// All elements of an F32/BF16/F16 tensor widened exactly to fp32.
[[nodiscard]] std::vector<float> read_f32(const located_tensor& t);
// The raw bytes of an 8-bit tensor.
[[nodiscard]] std::vector<std::uint8_t> read_u8(const located_tensor& t);

// corrupt_data naming the tensor unless every scale is finite and not negative.
[[nodiscard]] status check_scales(const located_tensor& t, const std::vector<float>& scales);

// The float dtypes scales come in.
inline const std::initializer_list<std::string_view> float_dtypes = {"F32", "BF16", "F16"};

}  // namespace pagedserve::quant
