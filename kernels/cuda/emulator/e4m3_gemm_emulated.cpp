// e4m3_gemm under the SIMT emulator: a reference loop queued on the emulated stream (codes
// decoded exactly, products summed in fp32 in k order, then the two scales), standing in
// for cuBLASLt as device_runtime_emulated.cpp's GEMM stands in for cuBLAS.

#include <cstdint>
#include <vector>

#include "kernels/cuda/e4m3_gemm.h"
#include "kernels/cuda/emulator/simt.h"
#include "kernels/cuda/half_bits.h"
#include "kernels/fp8_e4m3.h"

namespace pagedserve::kernels::cuda {
namespace {

void store(const tensor& out, std::int64_t i, float value) {
  if (out.type == dtype::f32) {
    out.as<float>()[i] = value;
  } else if (out.type == dtype::bf16) {
    out.as<std::uint16_t>()[i] = f32_to_bf16_bits(value);
  } else {
    out.as<std::uint16_t>()[i] = f32_to_f16_bits(value);
  }
}

class emulated_e4m3_gemm final : public e4m3_gemm {
 public:
  explicit emulated_e4m3_gemm(device_runtime& runtime) : runtime_(runtime) {}

  void run(const tensor& out, const tensor& x_codes, const tensor& w_codes, const tensor& x_scales,
           const tensor& w_scales) override {
    check_e4m3_gemm(out, x_codes, w_codes, x_scales, w_scales);
    simt::enqueue(runtime_.stream(), [=] {
      std::vector<float> value(256);
      for (int code = 0; code < 256; ++code) {
        value[static_cast<std::size_t>(code)] = e4m3_to_f32(static_cast<std::uint8_t>(code));
      }
      const std::int64_t m = x_codes.dim(0);
      const std::int64_t n = w_codes.dim(0);
      const std::int64_t k = w_codes.dim(1);
      const std::uint8_t* x = x_codes.as<const std::uint8_t>();
      const std::uint8_t* w = w_codes.as<const std::uint8_t>();
      const float* xs = x_scales.as<const float>();
      const float* ws = w_scales.as<const float>();
      for (std::int64_t r = 0; r < m; ++r) {
        for (std::int64_t c = 0; c < n; ++c) {
          float sum = 0.0F;
          for (std::int64_t i = 0; i < k; ++i) {
            sum += value[x[r * k + i]] * value[w[c * k + i]];
          }
          const float scale = xs[x_scales.numel() == 1 ? 0 : r] * ws[w_scales.numel() == 1 ? 0 : c];
          store(out, r * n + c, sum * scale);
        }
      }
    });
  }

 private:
  device_runtime& runtime_;
};

}  // namespace

std::unique_ptr<e4m3_gemm> e4m3_gemm::create(device_runtime& runtime) {
  return std::make_unique<emulated_e4m3_gemm>(runtime);
}

}  // namespace pagedserve::kernels::cuda
