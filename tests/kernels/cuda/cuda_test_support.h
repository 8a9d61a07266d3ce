#pragma once
// CUDA-vs-CPU op tests: a fixture that owns both backends (skipping where no CUDA device
// exists), random inputs exactly representable in the compute type (so both backends see
// identical values and only their arithmetic differs), and the error measure. The same tests
// build against the SIMT emulator (test_simt_ops): `emulated()` then picks a smaller sweep.

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
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device_info.h"
#include "kernels/cuda/half_bits.h"

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
    const auto device = cuda::query_device(&why);
    if (!device) GTEST_SKIP() << "no CUDA device: " << why;
    emulated_ = device->emulated;
    auto made = make_cuda_backend({GetParam(), 0});
    ASSERT_TRUE(made.ok()) << made.err().message;
    gpu_ = std::move(made).value();
    cpu_ = make_cpu_backend();
  }

  [[nodiscard]] dtype type() const { return GetParam(); }
  [[nodiscard]] bool emulated() const { return emulated_; }
  // The GPU's sweep, or on the emulator the smaller one.
  template <class T>
  [[nodiscard]] std::vector<T> sweep(std::initializer_list<T> on_gpu,
                                     std::initializer_list<T> on_emulator) const {
    return emulated_ ? std::vector<T>(on_emulator) : std::vector<T>(on_gpu);
  }
  // fp32 compute must match the fp32 reference to 1e-5; 16-bit storage to 1e-2.
  [[nodiscard]] double tolerance() const { return type() == dtype::f32 ? 1e-5 : 1e-2; }

  [[nodiscard]] std::vector<float> random(std::size_t n, std::uint32_t seed,
                                          float scale = 1.0F) const {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(n);
    for (float& x : v) {
      x = dist(gen);
      if (type() == dtype::bf16) x = cuda::bf16_bits_to_f32(cuda::f32_to_bf16_bits(x));
      if (type() == dtype::f16) x = cuda::f16_bits_to_f32(cuda::f32_to_f16_bits(x));
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
    EXPECT_TRUE(t.type == dtype::bf16 || t.type == dtype::f16);
    std::vector<std::uint16_t> bits(out.size());
    be.copy_to_host(bits.data(), t);
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i] =
          t.type == dtype::bf16 ? cuda::bf16_bits_to_f32(bits[i]) : cuda::f16_bits_to_f32(bits[i]);
    }
    return out;
  }

  void expect_close(const tensor& on_gpu, const tensor& on_cpu, const std::string& what) {
    const double err = max_rel_error(download(*gpu_, on_gpu), download(*cpu_, on_cpu));
    EXPECT_LE(err, tolerance()) << what;
  }

  std::unique_ptr<backend> cpu_;
  std::unique_ptr<backend> gpu_;
  bool emulated_ = false;
};

inline std::string dtype_name(const ::testing::TestParamInfo<dtype>& info) {
  switch (info.param) {
    case dtype::f32:
      return "f32";
    case dtype::bf16:
      return "bf16";
    case dtype::f16:
      return "f16";
    case dtype::i32:
    case dtype::u8:
      break;
  }
  return "i32";
}

inline const auto all_compute_types = ::testing::Values(dtype::f32, dtype::bf16, dtype::f16);

}  // namespace pagedserve::kernels::testing
