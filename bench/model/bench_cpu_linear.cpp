// bench_cpu_linear: the CPU backend's linear with int4 (with fp32 or int8 activations), int8
// (zero point and scale per group of 128) and fp8 e4m3 (scale per 128 x 128 block) weights
// against the fp32 linear on the same shapes, in the same run: time per call, weight bytes
// read per second, and each format's speed-up over fp32 (fp32 time / its time). Prints
// figures only.
//
// Decode reads every weight once per step, from memory when the model is larger than the
// caches: "cold" rotates each format over copies of its weight filling --footprint MiB (past
// the last-level cache); "hot" calls one copy, which stays in cache.
//
//   bench_cpu_linear [--footprint MiB]   (default 512; 0: hot only)

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"

namespace {

using namespace pagedserve::kernels;
using clock_type = std::chrono::steady_clock;

constexpr std::int64_t group = 128;

// One format's weight, repeated `copies` times back to back (the codes or fp32 values; the
// scales and zeros are small and shared).
struct weight_copies {
  weight_format format = weight_format::dense;
  std::int64_t out = 0;
  std::int64_t in = 0;
  std::int64_t bytes_per_copy = 0;  // everything one call reads from W
  int copies = 1;
  std::vector<std::uint8_t> data;
  std::vector<float> scales;
  std::vector<std::uint8_t> zeros;
  // Where set: each copy as the backend's upload_quantized lays it out (the CPU's int4 tiles).
  std::vector<quantized_weight> uploaded;
  std::vector<buffer> storage;

  [[nodiscard]] std::int64_t data_bytes() const {
    if (format == weight_format::dense) return out * in * 4;
    return out * (format == weight_format::int4 ? (in + 1) / 2 : in);
  }

  [[nodiscard]] linear_params params(int copy) {
    linear_params p;
    if (!uploaded.empty()) {
      p.quantized = uploaded[static_cast<std::size_t>(copy)];
      return p;
    }
    std::uint8_t* base = data.data() + copy * data_bytes();
    if (format == weight_format::dense) {
      p.weight = tensor::make(base, dtype::f32, {out, in});
      return p;
    }
    quantized_weight& w = p.quantized;
    w.format = format;
    w.out_features = out;
    w.in_features = in;
    w.group_size = group;
    w.block_rows = format == weight_format::fp8_e4m3 ? group : 1;
    w.codes = tensor::make(base, dtype::u8, {data_bytes()});
    w.scales = tensor::make(scales.data(), dtype::f32, {static_cast<std::int64_t>(scales.size())});
    if (!zeros.empty()) {
      w.zeros = tensor::make(zeros.data(), dtype::u8, {static_cast<std::int64_t>(zeros.size())});
    }
    return p;
  }
};

weight_copies make_weight(weight_format format, std::int64_t out, std::int64_t in,
                          std::int64_t footprint_bytes) {
  std::mt19937 gen(7);
  weight_copies w;
  w.format = format;
  w.out = out;
  w.in = in;
  const std::int64_t groups = (in + group - 1) / group;
  if (format != weight_format::dense) {
    const std::int64_t scale_rows =
        format == weight_format::fp8_e4m3 ? (out + group - 1) / group : out;
    std::uniform_real_distribution<float> scale(0.001F, 0.01F);
    w.scales.resize(static_cast<std::size_t>(scale_rows * groups));
    for (float& s : w.scales) s = scale(gen);
    if (format != weight_format::fp8_e4m3)
      w.zeros.assign(static_cast<std::size_t>(out * groups), 8);
  }
  const std::int64_t one = w.data_bytes();
  w.bytes_per_copy = one + static_cast<std::int64_t>(w.scales.size() * 4 + w.zeros.size());
  w.copies = static_cast<int>(std::max<std::int64_t>(1, footprint_bytes / one));
  w.data.resize(static_cast<std::size_t>(one * w.copies));
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::int64_t i = 0; i < one; ++i) {
    w.data[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(byte(gen) & 0x3F);
  }
  if (format == weight_format::dense) {  // small floats rather than random bit patterns
    auto* f = reinterpret_cast<float*>(w.data.data());
    std::uniform_real_distribution<float> value(-0.05F, 0.05F);
    for (std::int64_t i = 0; i < out * in; ++i) f[i] = value(gen);
  }
  for (int c = 1; c < w.copies; ++c) std::memcpy(w.data.data() + c * one, w.data.data(), one);
  return w;
}

// The same weights in the layout `be` uploads them to.
weight_copies uploaded_copies(backend& be, weight_copies host) {
  std::vector<quantized_weight> uploaded;
  for (int c = 0; c < host.copies; ++c) {
    std::optional<quantized_weight> w = be.upload_quantized(host.params(c).quantized, host.storage);
    if (!w) std::abort();
    uploaded.push_back(*w);
  }
  host.uploaded = std::move(uploaded);
  return host;
}

// Seconds per call: calls rotate over the copies; the best of 3 passes of >= 0.2 s.
double seconds_per_call(backend& be, weight_copies& w, std::vector<float>& x,
                        std::vector<float>& out, std::int64_t m) {
  auto call = [&](int copy) {
    linear_params p = w.params(copy);
    p.x = tensor::make(x.data(), dtype::f32, {m, w.in});
    p.out = tensor::make(out.data(), dtype::f32, {m, w.out});
    be.linear(p);
  };
  for (int c = 0; c < std::min(w.copies, 4); ++c) call(c);
  double best = 1e30;
  int copy = 0;
  for (int pass = 0; pass < 3; ++pass) {
    const auto start = clock_type::now();
    std::int64_t calls = 0;
    double elapsed = 0.0;
    while (elapsed < 0.2) {
      for (int i = 0; i < 16; ++i, ++calls) {
        call(copy);
        copy = (copy + 1) % w.copies;
      }
      elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
    }
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

// The columns: fp32; int4 in the host layout and as the backend uploads it (the CPU's tiles
// where its kernels read them), each with fp32 and with int8 activations (the same weights
// through `int8_activations`); int8; fp8.
void bench_shape(backend& exact, backend& int8_activations, std::int64_t out, std::int64_t in,
                 std::int64_t footprint) {
  std::vector<weight_copies> weights;
  for (const weight_format f :
       {weight_format::dense, weight_format::int4, weight_format::int8, weight_format::fp8_e4m3}) {
    weights.push_back(make_weight(f, out, in, footprint));
  }
  weights.push_back(uploaded_copies(exact, weights[1]));
  const std::pair<weight_copies*, backend*> columns[] = {{&weights[0], &exact},
                                                         {&weights[1], &exact},
                                                         {&weights[1], &int8_activations},
                                                         {&weights[4], &exact},
                                                         {&weights[4], &int8_activations},
                                                         {&weights[2], &exact},
                                                         {&weights[3], &exact}};
  for (const std::int64_t m : {1, 2, 4, 8, 16}) {
    std::vector<float> x(static_cast<std::size_t>(m * in), 0.5F);
    std::vector<float> y(static_cast<std::size_t>(m * out));
    std::printf("  [%4lld x %4lld] m %2lld |", static_cast<long long>(out),
                static_cast<long long>(in), static_cast<long long>(m));
    double dense_s = 0.0;
    for (const auto& [w_ptr, be] : columns) {
      weight_copies& w = *w_ptr;
      const double s = seconds_per_call(*be, w, x, y, m);
      if (w.format == weight_format::dense) dense_s = s;
      std::printf(" %7.1f us %5.1f GB/s %4.2fx |", s * 1e6,
                  static_cast<double>(w.bytes_per_copy) / s / 1e9, dense_s / s);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t footprint_mib = 512;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--footprint" && i + 1 < argc) {
      footprint_mib = std::atoll(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: bench_cpu_linear [--footprint MiB]\n");
      return 2;
    }
  }
  const auto exact = make_cpu_backend();
  const auto int8_activations = make_cpu_backend({true});
  std::printf(
      "bench_cpu_linear: %d threads; per format: time per call, W bytes/s, fp32 time / "
      "its time\n",
      omp_get_max_threads());
  std::printf(
      "  columns: fp32 | int4 (g128), host layout | the same, int8 activations (AVX512-VNNI, "
      "else fp32) | int4 as uploaded (int4 tiles on AVX512-VNNI) | the same, int8 activations "
      "| int8 (g128) | fp8 e4m3 (128x128 blocks)\n");
  // A dense model's MLP and attention, then a MoE expert's (qwen3-moe-490m: 512 x 1024).
  const std::pair<std::int64_t, std::int64_t> shapes[] = {
      {2816, 1024}, {1024, 2816}, {1024, 1024}, {512, 1024}, {1024, 512}};
  std::vector<std::int64_t> footprints{0};
  if (footprint_mib > 0) footprints.push_back(footprint_mib << 20);
  for (const std::int64_t footprint : footprints) {
    std::printf("%s\n", footprint == 0 ? "hot (one copy, in cache):"
                                       : "cold (copies rotated past the caches):");
    for (const auto& [out, in] : shapes) bench_shape(*exact, *int8_activations, out, in, footprint);
  }
  return 0;
}
