// Row and element-wise ops on the CUDA backend against the CPU reference, on the same random
// inputs, for f32 and bf16 compute.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_ops = cuda_vs_cpu;

std::vector<std::int32_t> random_indices(std::int64_t n, std::int64_t bound, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int32_t> dist(0, static_cast<std::int32_t>(bound - 1));
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = dist(gen);
  return v;
}

TEST_P(cuda_ops, EmbeddingAndGatherRowsCopyTheIndexedRows) {
  const std::int64_t vocab = 1000;
  for (std::int64_t hidden : {64, 2048}) {
    for (std::int64_t n : {1, 37, 256}) {
      const auto table = random(static_cast<std::size_t>(vocab * hidden), 1);
      const auto ids = random_indices(n, vocab, 2);
      const std::string what = "hidden " + std::to_string(hidden) + " n " + std::to_string(n);
      buffer out_gpu = gpu_->allocate(type(), {n, hidden});
      buffer out_cpu = cpu_->allocate(dtype::f32, {n, hidden});
      buffer table_gpu = upload(*gpu_, table, {vocab, hidden});
      buffer table_cpu = upload(*cpu_, table, {vocab, hidden});
      buffer ids_gpu = upload_i32(*gpu_, ids, {n});
      buffer ids_cpu = upload_i32(*cpu_, ids, {n});
      gpu_->embedding({out_gpu.view(), table_gpu.view(), ids_gpu.view()});
      cpu_->embedding({out_cpu.view(), table_cpu.view(), ids_cpu.view()});
      expect_close(out_gpu.view(), out_cpu.view(), "embedding " + what);
      gpu_->gather_rows({out_gpu.view(), table_gpu.view(), ids_gpu.view()});
      cpu_->gather_rows({out_cpu.view(), table_cpu.view(), ids_cpu.view()});
      expect_close(out_gpu.view(), out_cpu.view(), "gather_rows " + what);
    }
  }
}

std::vector<std::int32_t> download_i32(backend& be, const tensor& t) {
  std::vector<std::int32_t> host(static_cast<std::size_t>(t.numel()));
  be.copy_to_host(host.data(), t);
  return host;
}

// k (dst, src) rows with distinct dsts in [0, n) and srcs in [0, m), flattened.
std::vector<std::int32_t> random_pairs(std::int64_t k, std::int64_t n, std::int64_t m,
                                       std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<std::int32_t> dsts(static_cast<std::size_t>(n));
  std::iota(dsts.begin(), dsts.end(), 0);
  std::shuffle(dsts.begin(), dsts.end(), gen);
  std::uniform_int_distribution<std::int32_t> src(0, static_cast<std::int32_t>(m - 1));
  std::vector<std::int32_t> pairs;
  for (std::int64_t i = 0; i < k; ++i) {
    pairs.push_back(dsts[static_cast<std::size_t>(i)]);
    pairs.push_back(src(gen));
  }
  return pairs;
}

TEST_P(cuda_ops, ScatterTokensMatchesTheCpuTwin) {
  for (std::int64_t k : sweep<std::int64_t>({0, 1, 37, 256, 5000}, {0, 1, 37, 300})) {
    const std::int64_t n = k + 29;
    const std::int64_t m = k / 2 + 3;
    const auto initial = random_indices(n, 1 << 30, 30);
    const auto values = random_indices(m, 1 << 30, 31);
    const auto pairs = random_pairs(k, n, m, 32);
    buffer dst_gpu = upload_i32(*gpu_, initial, {n});
    buffer dst_cpu = upload_i32(*cpu_, initial, {n});
    buffer src_gpu = upload_i32(*gpu_, values, {m});
    buffer src_cpu = upload_i32(*cpu_, values, {m});
    buffer pairs_gpu = upload_i32(*gpu_, pairs, {k, 2});
    buffer pairs_cpu = upload_i32(*cpu_, pairs, {k, 2});
    gpu_->scatter_tokens({dst_gpu.view(), src_gpu.view(), pairs_gpu.view()});
    cpu_->scatter_tokens({dst_cpu.view(), src_cpu.view(), pairs_cpu.view()});
    const auto got = download_i32(*gpu_, dst_gpu.view());
    EXPECT_EQ(got, download_i32(*cpu_, dst_cpu.view())) << "k " << k;
    if (k == 0) {
      EXPECT_EQ(got, initial) << "no pairs: dst untouched";
    } else {
      EXPECT_NE(got, initial) << "k " << k;
    }
  }
}

TEST_P(cuda_ops, ScatterTokensReplaysFromACapturedGraphWithEachStepsSources) {
  const std::int64_t n = 40;
  const std::int64_t m = 8;
  const std::int64_t k = 6;
  const std::vector<std::int32_t> initial(static_cast<std::size_t>(n), -1);
  const auto pairs = random_pairs(k, n, m, 33);
  buffer dst = upload_i32(*gpu_, initial, {n});
  buffer src = upload_i32(*gpu_, random_indices(m, 1000, 34), {m});
  buffer pairs_gpu = upload_i32(*gpu_, pairs, {k, 2});
  const auto graph = gpu_->capture([&] {
    gpu_->scatter_tokens({dst.view(), src.view(), pairs_gpu.view()});
  });
  ASSERT_NE(graph, nullptr) << "the CUDA backend captures graphs";
  gpu_->synchronize();
  EXPECT_EQ(download_i32(*gpu_, dst.view()), initial) << "captured work is recorded, not run";
  for (std::uint32_t step = 0; step < 3; ++step) {
    const auto values = random_indices(m, 1000, 35 + step);
    gpu_->copy_from_host(src.view(), values.data());
    graph->replay();
    std::vector<std::int32_t> want = initial;
    for (std::size_t i = 0; i < pairs.size(); i += 2) {
      want[static_cast<std::size_t>(pairs[i])] = values[static_cast<std::size_t>(pairs[i + 1])];
    }
    EXPECT_EQ(download_i32(*gpu_, dst.view()), want) << "replay " << step;
  }
}

// A marker stands in for synchronize: once it has passed, an asynchronous copy enqueued before
// it has landed in host memory (on the emulator too: waiting runs the queued work).
TEST_P(cuda_ops, AMarkerHasPassedOnceTheWorkBeforeItHasRun) {
  const auto start = gpu_->make_marker();
  const auto stop = gpu_->make_marker();
  EXPECT_TRUE(stop->passed()) << "never recorded";
  EXPECT_EQ(stop->seconds_since(*start), std::nullopt) << "never recorded";
  const std::int64_t n = 4096;
  const std::int64_t m = 1024;
  const std::int64_t k = 1000;
  const auto values = random_indices(m, 1 << 30, 36);
  const auto pairs = random_pairs(k, n, m, 37);
  buffer dst = upload_i32(*gpu_, std::vector<std::int32_t>(static_cast<std::size_t>(n), 0), {n});
  buffer src = upload_i32(*gpu_, values, {m});
  buffer pairs_gpu = upload_i32(*gpu_, pairs, {k, 2});
  const std::shared_ptr<void> pinned = gpu_->allocate_host(dst.view().num_bytes());
  auto* landed = static_cast<std::int32_t*>(pinned.get());
  std::fill_n(landed, n, -1);
  std::vector<std::int32_t> want(static_cast<std::size_t>(n), 0);
  for (std::size_t i = 0; i < pairs.size(); i += 2) {
    want[static_cast<std::size_t>(pairs[i])] = values[static_cast<std::size_t>(pairs[i + 1])];
  }

  start->record();
  for (int repeat = 0; repeat < 8; ++repeat) {
    gpu_->scatter_tokens({dst.view(), src.view(), pairs_gpu.view()});
  }
  gpu_->copy_to_host_async(landed, dst.view());
  stop->record();
  stop->wait();
  EXPECT_TRUE(stop->passed());
  EXPECT_TRUE(start->passed());
  EXPECT_EQ(std::vector<std::int32_t>(landed, landed + n), want) << "the copy before the marker";

  // Both backends keep a device clock (the emulator's is the host's while it runs the work).
  const auto seconds = stop->seconds_since(*start);
  ASSERT_TRUE(seconds.has_value());
  EXPECT_GE(*seconds, 0.0);
  EXPECT_LE(start->seconds_since(*stop).value_or(1.0), 0.0) << "stop was recorded later";
  EXPECT_EQ(start->seconds_since(*gpu_->make_marker()), std::nullopt) << "earlier never recorded";
}

TEST_P(cuda_ops, RecordingAMarkerWhileCapturingIsABrokenInvariant) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto marker = gpu_->make_marker();
  EXPECT_DEATH((void)gpu_->capture([&] { marker->record(); }),
               "stream_marker::record: not while a graph is being captured");
}

// cudaFree inside a capture fails on the GPU (it would synchronise the device); the emulator
// refuses it too, so that CI sees a buffer dropped inside a captured step.
TEST_P(cuda_ops, FreeingDeviceMemoryWhileCapturingIsABrokenInvariant) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::optional<buffer> dropped(gpu_->allocate(type(), {4}));
  EXPECT_DEATH((void)gpu_->capture([&] { dropped.reset(); }),
               "free of device memory: not while a graph is being captured|cudaFree");
}

// cudaMemcpyAsync is undefined for overlapping ranges: a copy between them is refused.
TEST_P(cuda_ops, ACopyBetweenOverlappingRangesIsABrokenInvariant) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  buffer b = gpu_->allocate(type(), {8});
  EXPECT_DEATH(gpu_->copy(b.view().rows(1, 4), b.view().rows(0, 4)), "op check failed in copy");
}

TEST_P(cuda_ops, RmsNormMatchesTheReferenceOverRowWidths) {
  for (std::int64_t width : {64, 128, 2048, 4096}) {
    for (std::int64_t rows : {1, 7, 256}) {
      const auto x = random(static_cast<std::size_t>(rows * width), 3, 3.0F);
      const auto weight = random(static_cast<std::size_t>(width), 4);
      buffer x_gpu = upload(*gpu_, x, {rows, width});
      buffer x_cpu = upload(*cpu_, x, {rows, width});
      buffer w_gpu = upload(*gpu_, weight, {width});
      buffer w_cpu = upload(*cpu_, weight, {width});
      buffer out_gpu = gpu_->allocate(type(), {rows, width});
      buffer out_cpu = cpu_->allocate(dtype::f32, {rows, width});
      gpu_->rms_norm({out_gpu.view(), x_gpu.view(), w_gpu.view(), 1e-5F});
      cpu_->rms_norm({out_cpu.view(), x_cpu.view(), w_cpu.view(), 1e-5F});
      const std::string what = "width " + std::to_string(width) + " rows " + std::to_string(rows);
      expect_close(out_gpu.view(), out_cpu.view(), "rms_norm " + what);
      // In place, as the per-head q/k norm runs.
      gpu_->rms_norm({x_gpu.view(), x_gpu.view(), w_gpu.view(), 1e-5F});
      expect_close(x_gpu.view(), out_cpu.view(), "rms_norm in place " + what);
    }
  }
}

TEST_P(cuda_ops, AddRmsNormUpdatesTheResidualAndNormalisesIt) {
  for (std::int64_t width : {64, 2048}) {
    for (std::int64_t rows : {1, 33, 256}) {
      const auto residual = random(static_cast<std::size_t>(rows * width), 5, 2.0F);
      const auto x = random(static_cast<std::size_t>(rows * width), 6);
      const auto weight = random(static_cast<std::size_t>(width), 7);
      buffer res_gpu = upload(*gpu_, residual, {rows, width});
      buffer res_cpu = upload(*cpu_, residual, {rows, width});
      buffer x_gpu = upload(*gpu_, x, {rows, width});
      buffer x_cpu = upload(*cpu_, x, {rows, width});
      buffer w_gpu = upload(*gpu_, weight, {width});
      buffer w_cpu = upload(*cpu_, weight, {width});
      buffer out_gpu = gpu_->allocate(type(), {rows, width});
      buffer out_cpu = cpu_->allocate(dtype::f32, {rows, width});
      gpu_->add_rms_norm({res_gpu.view(), x_gpu.view(), out_gpu.view(), w_gpu.view(), 1e-6F});
      cpu_->add_rms_norm({res_cpu.view(), x_cpu.view(), out_cpu.view(), w_cpu.view(), 1e-6F});
      const std::string what = "width " + std::to_string(width) + " rows " + std::to_string(rows);
      expect_close(res_gpu.view(), res_cpu.view(), "add_rms_norm residual " + what);
      expect_close(out_gpu.view(), out_cpu.view(), "add_rms_norm out " + what);
    }
  }
}

TEST_P(cuda_ops, RopeRotatesEveryHeadByItsPosition) {
  for (std::int64_t head_dim : {64, 128}) {
    for (std::int64_t heads : {8, 32}) {
      for (std::int64_t n : {1, 33, 256}) {
        std::vector<float> inv_freq(static_cast<std::size_t>(head_dim / 2));
        for (std::size_t i = 0; i < inv_freq.size(); ++i) {
          inv_freq[i] = static_cast<float>(
              std::pow(500000.0, -2.0 * static_cast<double>(i) / static_cast<double>(head_dim)));
        }
        const auto positions = random_indices(n, 4096, 8);
        const auto x = random(static_cast<std::size_t>(n * heads * head_dim), 9);
        buffer x_gpu = upload(*gpu_, x, {n, heads, head_dim});
        buffer x_cpu = upload(*cpu_, x, {n, heads, head_dim});
        buffer pos_gpu = upload_i32(*gpu_, positions, {n});
        buffer pos_cpu = upload_i32(*cpu_, positions, {n});
        buffer freq_gpu = gpu_->allocate(dtype::f32, {head_dim / 2});
        gpu_->upload_f32(freq_gpu.view(), inv_freq);
        buffer freq_cpu = upload(*cpu_, inv_freq, {head_dim / 2});
        gpu_->rope({x_gpu.view(), pos_gpu.view(), freq_gpu.view()});
        cpu_->rope({x_cpu.view(), pos_cpu.view(), freq_cpu.view()});
        expect_close(x_gpu.view(), x_cpu.view(),
                     "rope head_dim " + std::to_string(head_dim) + " heads " +
                         std::to_string(heads) + " n " + std::to_string(n));
      }
    }
  }
}

TEST_P(cuda_ops, SiluMulAndAddAreElementWise) {
  for (std::int64_t n : {1, 1000, 256 * 8192}) {
    const auto a = random(static_cast<std::size_t>(n), 10, 6.0F);
    const auto b = random(static_cast<std::size_t>(n), 11, 2.0F);
    buffer a_gpu = upload(*gpu_, a, {n});
    buffer a_cpu = upload(*cpu_, a, {n});
    buffer b_gpu = upload(*gpu_, b, {n});
    buffer b_cpu = upload(*cpu_, b, {n});
    buffer out_gpu = gpu_->allocate(type(), {n});
    buffer out_cpu = cpu_->allocate(dtype::f32, {n});
    gpu_->silu_mul({out_gpu.view(), a_gpu.view(), b_gpu.view()});
    cpu_->silu_mul({out_cpu.view(), a_cpu.view(), b_cpu.view()});
    expect_close(out_gpu.view(), out_cpu.view(), "silu_mul n " + std::to_string(n));
    gpu_->add({a_gpu.view(), a_gpu.view(), b_gpu.view()});
    cpu_->add({a_cpu.view(), a_cpu.view(), b_cpu.view()});
    expect_close(a_gpu.view(), a_cpu.view(), "add in place n " + std::to_string(n));
  }
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_ops, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
