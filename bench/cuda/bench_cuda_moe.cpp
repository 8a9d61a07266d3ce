// bench_cuda_moe: one sparse layer of Qwen3-30B-A3B (hidden 2048, moe_intermediate 768, 128
// experts, top 8) through the CUDA backend's fused_moe (kernels/cuda/fused_moe_op.cu), at
// M = 1, 16, 64 and 256 tokens routed by moe_route over random logits, with the experts
//   bf16   dense stacks in the compute type
//   int4   g128 codes with zero points (AWQ / GPTQ without act-order), host layout
//   fp8    e4m3 codes with 128x128 block scales (Qwen3-30B-A3B-FP8's), host layout
// Per line: the microseconds of one fused_moe call (median of timed runs after warm-ups), the
// experts the routing activated (distinct ids, counted on the host from the ids moe_route
// wrote, copied back outside the timed loop), the bytes floor (the active experts' gate, up
// and down weights: codes, scales, zeros; x and out are left out), the achieved GB/s over that
// floor, and x_floor = time / (floor / 4.27 TB/s), the copy bandwidth the other benchmarks
// use (bench_support.h). moe_route's own time is the last column. Figures only, no goals.
//
// L2: the timed calls cycle through `routing_sets` independent routings of the same M (the
// floor is their mean), so a call does not find the previous call's experts in the 50 MB L2
// (one int4 expert is 2.4 MB; eight of them would fit).
//
//   bench_cuda_moe [--runs N]
// On the SIMT emulator the shapes shrink and the times mean nothing.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "bench/cuda/bench_support.h"

namespace pagedserve::bench {
namespace {

using kernels::backend;
using kernels::buffer;
using kernels::dtype;
using kernels::expert_weights;
using kernels::quantized_weight;
using kernels::tensor;
using kernels::weight_format;

constexpr int routing_sets = 8;
constexpr std::int64_t quant_group = 128;  // int4 inputs per scale; fp8 block edge

struct moe_shape {
  const char* name;
  std::int64_t hidden, inter, experts, top_k;
};

// Random codes, scales and zero points of E experts [n, k] in the host layout of
// kernels/ops.h, stacked along a leading expert dim (kernels/moe_ops.h).
struct host_stack {
  std::vector<std::uint8_t> codes;
  std::vector<float> scales;
  std::vector<std::uint8_t> zeros;
  expert_weights weights;

  host_stack(weight_format format, std::int64_t experts, std::int64_t n, std::int64_t k,
             std::uint32_t seed) {
    const bool int4 = format == weight_format::int4;
    const std::int64_t row_bytes = int4 ? (k + 1) / 2 : k;
    const std::int64_t groups = (k + quant_group - 1) / quant_group;
    const std::int64_t block_rows = int4 ? 1 : quant_group;
    const std::int64_t scale_rows = (n + block_rows - 1) / block_rows;
    codes.resize(static_cast<std::size_t>(experts * n * row_bytes));
    std::uint32_t state = seed * 2654435761U + 1U;
    for (std::uint8_t& c : codes) {
      state = state * 1664525U + 1013904223U;
      c = static_cast<std::uint8_t>(state >> 24);
      if (!int4 && (c & 0x7F) == 0x7F) c ^= 0x01;  // e4m3: no NaN codes
    }
    scales.assign(static_cast<std::size_t>(experts * scale_rows * groups), 0.01F);
    if (int4) zeros.assign(static_cast<std::size_t>(experts * n * groups), 8);
    quantized_weight& w = weights.quantized;
    w.format = format;
    w.out_features = n;
    w.in_features = k;
    w.group_size = quant_group;
    w.block_rows = block_rows;
    w.codes = tensor::make(codes.data(), dtype::u8, {experts, n, row_bytes});
    w.scales = tensor::make(scales.data(), dtype::f32, {experts, scale_rows, groups});
    if (int4) w.zeros = tensor::make(zeros.data(), dtype::u8, {experts, n, groups});
    weights.num_experts = experts;
  }

  // Bytes of one expert's projection: codes, scales and zero points.
  [[nodiscard]] double expert_bytes() const {
    const quantized_weight& w = weights.quantized;
    return static_cast<double>(w.codes.num_bytes() + w.scales.num_bytes() + w.zeros.num_bytes()) /
           static_cast<double>(weights.num_experts);
  }
};

// gate, up and down of every expert in one weight format, in the backend's memory.
struct layer_weights {
  const char* name = "";
  std::vector<buffer> storage;
  expert_weights gate, up, down;
  double expert_bytes = 0.0;  // gate + up + down of one expert
};

layer_weights dense_layer(backend& cuda, const moe_shape& s) {
  layer_weights l;
  l.name = "bf16";
  const auto stack = [&](std::int64_t n, std::int64_t k, std::uint32_t seed) {
    buffer b = cuda.allocate(dtype::bf16, {s.experts, n, k});
    kernels::fill_uniform(cuda, b.view(), seed, 0.05F);
    const expert_weights w{s.experts, b.view(), {}};
    l.storage.push_back(std::move(b));
    return w;
  };
  l.gate = stack(s.inter, s.hidden, 21);
  l.up = stack(s.inter, s.hidden, 22);
  l.down = stack(s.hidden, s.inter, 23);
  l.expert_bytes = 3.0 * static_cast<double>(s.inter * s.hidden) * 2.0;
  return l;
}

// Exits where the backend would not compute with such a stack (it would dequantize at load).
layer_weights quantized_layer(backend& cuda, const moe_shape& s, weight_format format) {
  layer_weights l;
  l.name = format == weight_format::int4 ? "int4" : "fp8";
  const auto stack = [&](std::int64_t n, std::int64_t k, std::uint32_t seed) {
    const host_stack host(format, s.experts, n, k, seed);
    l.expert_bytes += host.expert_bytes();
    const auto uploaded = cuda.upload_quantized_experts(host.weights, l.storage);
    if (!uploaded) {
      std::fprintf(stderr, "bench_cuda_moe: the backend does not run %s experts\n", l.name);
      std::exit(1);
    }
    return *uploaded;
  };
  l.gate = stack(s.inter, s.hidden, 31);
  l.up = stack(s.inter, s.hidden, 32);
  l.down = stack(s.hidden, s.inter, 33);
  return l;
}

// `routing_sets` routings of m tokens: moe_route over random logits, once, before timing.
struct routings {
  std::vector<buffer> ids, weights;
  double mean_active = 0.0;  // distinct experts per routing
  double route_seconds = 0.0;
};

routings route(backend& cuda, const moe_shape& s, std::int64_t m, int runs) {
  routings r;
  buffer logits = cuda.allocate(dtype::f32, {m, s.experts});
  std::vector<std::int32_t> host(static_cast<std::size_t>(m * s.top_k));
  for (int set = 0; set < routing_sets; ++set) {
    kernels::fill_uniform(cuda, logits.view(), static_cast<std::uint32_t>(1000 * m + set), 2.0F);
    r.ids.push_back(cuda.allocate(dtype::i32, {m, s.top_k}));
    r.weights.push_back(cuda.allocate(dtype::f32, {m, s.top_k}));
    const kernels::moe_route_params p{
        r.ids.back().view(), r.weights.back().view(), logits.view(), true, {}};
    cuda.moe_route(p);
    if (set == 0) r.route_seconds = median_seconds(cuda, 3, runs, [&] { cuda.moe_route(p); });
    cuda.synchronize();
    cuda.copy_to_host(host.data(), r.ids.back().view());
    r.mean_active += static_cast<double>(std::set<std::int32_t>(host.begin(), host.end()).size());
  }
  r.mean_active /= routing_sets;
  return r;
}

void measure(backend& cuda, const moe_shape& s, const std::vector<layer_weights>& layers,
             std::int64_t m, int runs) {
  const routings r = route(cuda, s, m, runs);
  buffer x = cuda.allocate(dtype::bf16, {m, s.hidden});
  buffer out = cuda.allocate(dtype::bf16, {m, s.hidden});
  kernels::fill_uniform(cuda, x.view(), 41, 1.0F);
  buffer scratch = cuda.allocate(
      dtype::u8, {cuda.fused_moe_scratch_bytes({m, s.top_k, s.experts, s.hidden, s.inter})});
  for (const layer_weights& l : layers) {
    kernels::fused_moe_params p{out.view(), x.view(), {}, {}, l.gate, l.up, l.down, scratch.view()};
    int next = 0;
    const double seconds = median_seconds(cuda, 3, runs, [&] {
      p.topk_ids = r.ids[static_cast<std::size_t>(next % routing_sets)].view();
      p.topk_weights = r.weights[static_cast<std::size_t>(next % routing_sets)].view();
      ++next;
      cuda.fused_moe(p);
    });
    const double floor_bytes = r.mean_active * l.expert_bytes;
    const double floor_seconds = floor_bytes / h200_copy_bytes_per_s;
    std::printf("moe %-14s %-5s %4lld %7.1f %10.1f %10.2f %9.1f %8.2f %9.1f\n", s.name, l.name,
                static_cast<long long>(m), r.mean_active, seconds * 1e6, floor_bytes / 1e6,
                floor_bytes / seconds / 1e9, seconds / floor_seconds, r.route_seconds * 1e6);
  }
}

int run(int runs) {
  bench_device device = open_bench_device("bench_cuda_moe");
  if (!device.backend) return device.exit_code;
  backend& cuda = *device.backend;
  const moe_shape shape = device.emulated ? moe_shape{"tiny", 64, 48, 16, 4}
                                          : moe_shape{"qwen3-30b-a3b", 2048, 768, 128, 8};
  std::vector<layer_weights> layers;
  layers.push_back(dense_layer(cuda, shape));
  layers.push_back(quantized_layer(cuda, shape, weight_format::int4));
  layers.push_back(quantized_layer(cuda, shape, weight_format::fp8_e4m3));
  std::printf("moe %-14s %-5s %4s %7s %10s %10s %9s %8s %9s\n", "shape", "wts", "M", "active", "us",
              "floor_MB", "GB/s", "x_floor", "route_us");
  for (const std::int64_t m : device.emulated ? std::vector<std::int64_t>{1, 5}
                                              : std::vector<std::int64_t>{1, 16, 64, 256}) {
    measure(cuda, shape, layers, m, runs);
  }
  return 0;
}

}  // namespace
}  // namespace pagedserve::bench

int main(int argc, char** argv) {
  return pagedserve::bench::run(pagedserve::bench::runs_flag(argc, argv, 1));
}
