#pragma once
// CUDA-vs-CPU op tests: a fixture that owns both backends (skipping where no CUDA device
// exists), random inputs exactly representable in the compute type (so both backends see
// identical values and only their arithmetic differs), and the error measure.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cuda/bf16_host.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device_info.h"

namespace pagedserve::kernels::testing {

// Largest |got - want| relative to max(1, max|want|), as the CPU op tests measure it.
inline double max_rel_error(const std::vector<float>& got, const std::vector<float>& want) {
  EXPECT_EQ(got.size(), want.size());
  double max_err = 0.0;
  double max_ref = 1.0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    const double err = std::abs(static_cast<double>(got[i]) - want[i]);
    max_err = std::isnan(err) ? INFINITY : std::max(max_err, err);
    max_ref = std::max(max_ref, std::abs(static_cast<double>(want[i])));
  }
  return max_err / max_ref;
}

class cuda_vs_cpu : public ::testing::TestWithParam<dtype> {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::query_device(&why)) GTEST_SKIP() << "no CUDA device: " << why;
    auto made = make_cuda_backend({GetParam(), 0});
    ASSERT_TRUE(made.ok()) << made.err().message;
    gpu_ = std::move(made).value();
    cpu_ = make_cpu_backend();
  }

  [[nodiscard]] dtype type() const { return GetParam(); }
  // fp32 compute must match the fp32 reference to 1e-5; bf16 storage to 1e-2.
  [[nodiscard]] double tolerance() const { return type() == dtype::f32 ? 1e-5 : 1e-2; }

  [[nodiscard]] std::vector<float> random(std::size_t n, std::uint32_t seed,
                                          float scale = 1.0F) const {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(n);
    for (float& x : v) {
      x = dist(gen);
      if (type() == dtype::bf16) x = cuda::bf16_bits_to_f32(cuda::f32_to_bf16_bits(x));
    }
    return v;
  }

  // A buffer of the backend's compute type holding `host`.
  static buffer upload(backend& be, const std::vector<float>& host,
                       std::initializer_list<std::int64_t> shape) {
    buffer b = be.allocate(be.compute_type(), shape);
    be.upload_f32(b.view(), host);
    return b;
  }

  static buffer upload_i32(backend& be, const std::vector<std::int32_t>& host,
                           std::initializer_list<std::int64_t> shape) {
    buffer b = be.allocate(dtype::i32, shape);
    EXPECT_EQ(b.view().numel(), static_cast<std::int64_t>(host.size()));
    be.copy_from_host(b.view(), host.data());
    return b;
  }

  static std::vector<float> download(backend& be, const tensor& t) {
    be.synchronize();
    std::vector<float> out(static_cast<std::size_t>(t.numel()));
    if (t.type == dtype::f32) {
      be.copy_to_host(out.data(), t);
      return out;
    }
    EXPECT_EQ(t.type, dtype::bf16);
    std::vector<std::uint16_t> bits(out.size());
    be.copy_to_host(bits.data(), t);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = cuda::bf16_bits_to_f32(bits[i]);
    return out;
  }

  void expect_close(const tensor& on_gpu, const tensor& on_cpu, const std::string& what) {
    const double err = max_rel_error(download(*gpu_, on_gpu), download(*cpu_, on_cpu));
    EXPECT_LE(err, tolerance()) << what;
  }

  std::unique_ptr<backend> cpu_;
  std::unique_ptr<backend> gpu_;
};

inline std::string dtype_name(const ::testing::TestParamInfo<dtype>& info) {
  return info.param == dtype::f32 ? "f32" : "bf16";
}

}  // namespace pagedserve::kernels::testing
