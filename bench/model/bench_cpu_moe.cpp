// bench_cpu_moe: one sparse layer's experts on the CPU backend (fused_moe: rows grouped by
// expert), for a decode batch of M = 1, 16, 64 and 256 tokens routed by moe_route over
// random router logits, at the expert shapes of the 490M comparison model and Qwen3-30B-A3B,
// with fp32 and int4 (group 128) experts. Per case: time per call; the active experts (those
// some row chose) and the expert projections fused_moe handed to linear (a counting linear:
// each active expert's three weights must be read once, so reads = 3 x active); the bytes
// those experts hold (the floor a step must read) over the time; and the speed-up over the
// ungrouped baseline of the same run, which runs each (token, expert) pair alone and so
// reads an expert's weights once per row that chose it. Prints figures only.
//
//   bench_cpu_moe [--quick]   (--quick: the 490M shape only)

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/moe_op.h"

namespace {

using namespace pagedserve::kernels;
using clock_type = std::chrono::steady_clock;

constexpr std::int64_t group = 128;

struct moe_shape {
  const char* name;
  std::int64_t hidden, inter, experts, top_k;
};

// One projection of E experts, [E, out, in]: fp32 values or int4 codes with g128 scales.
struct projection {
  std::vector<float> dense;
  std::vector<std::uint8_t> codes, zeros;
  std::vector<float> scales;
  expert_weights w;
  std::int64_t bytes_per_expert = 0;
};

projection make_projection(bool int4, std::int64_t e, std::int64_t out, std::int64_t in,
                           std::mt19937& gen) {
  projection p;
  p.w.num_experts = e;
  std::uniform_real_distribution<float> value(-0.05F, 0.05F);
  if (!int4) {
    p.dense.resize(static_cast<std::size_t>(e * out * in));
    for (float& v : p.dense) v = value(gen);
    p.w.dense = tensor::make(p.dense.data(), dtype::f32, {e, out, in});
    p.bytes_per_expert = out * in * 4;
    return p;
  }
  const std::int64_t groups = (in + group - 1) / group;
  p.codes.resize(static_cast<std::size_t>(e * out * ((in + 1) / 2)));
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::uint8_t& c : p.codes) c = static_cast<std::uint8_t>(byte(gen));
  p.scales.assign(static_cast<std::size_t>(e * out * groups), 0.003F);
  p.zeros.assign(static_cast<std::size_t>(e * out * groups), 8);
  quantized_weight& q = p.w.quantized;
  q.format = weight_format::int4;
  q.out_features = out;
  q.in_features = in;
  q.group_size = group;
  q.codes = tensor::make(p.codes.data(), dtype::u8, {e, out, (in + 1) / 2});
  q.scales = tensor::make(p.scales.data(), dtype::f32, {e, out, groups});
  q.zeros = tensor::make(p.zeros.data(), dtype::u8, {e, out, groups});
  p.bytes_per_expert = out * ((in + 1) / 2) + out * groups * 5;
  return p;
}

// Best seconds per call of `call` over 3 passes of >= 0.2 s.
double seconds_per_call(const std::function<void()>& call) {
  call();
  double best = 1e30;
  for (int pass = 0; pass < 3; ++pass) {
    const auto start = clock_type::now();
    std::int64_t calls = 0;
    double elapsed = 0.0;
    while (elapsed < 0.2) {
      call();
      ++calls;
      elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
    }
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

void bench_case(backend& be, const moe_shape& s, bool int4) {
  std::mt19937 gen(11);
  projection gate = make_projection(int4, s.experts, s.inter, s.hidden, gen);
  projection up = make_projection(int4, s.experts, s.inter, s.hidden, gen);
  projection down = make_projection(int4, s.experts, s.hidden, s.inter, gen);
  const std::int64_t expert_bytes =
      gate.bytes_per_expert + up.bytes_per_expert + down.bytes_per_expert;
  for (const std::int64_t m : {1, 16, 64, 256}) {
    std::vector<float> x(static_cast<std::size_t>(m * s.hidden), 0.1F);
    std::vector<float> out(x.size());
    std::vector<float> logits(static_cast<std::size_t>(m * s.experts));
    std::normal_distribution<float> logit(0.0F, 1.0F);
    for (float& v : logits) v = logit(gen);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(m * s.top_k));
    std::vector<float> weights(ids.size());
    const tensor ids_t = tensor::make(ids.data(), dtype::i32, {m, s.top_k});
    const tensor weights_t = tensor::make(weights.data(), dtype::f32, {m, s.top_k});
    be.moe_route(
        {ids_t, weights_t, tensor::make(logits.data(), dtype::f32, {m, s.experts}), true, {}});
    std::vector<std::uint8_t> scratch(static_cast<std::size_t>(
        be.fused_moe_scratch_bytes({m, s.top_k, s.experts, s.hidden, s.inter})));
    fused_moe_params p{
        tensor::make(out.data(), dtype::f32, {m, s.hidden}),
        tensor::make(x.data(), dtype::f32, {m, s.hidden}),
        ids_t,
        weights_t,
        gate.w,
        up.w,
        down.w,
        tensor::make(scratch.data(), dtype::u8, {static_cast<std::int64_t>(scratch.size())})};
    std::int64_t reads = 0;
    cpu::fused_moe(p, [&](const linear_params& l) {
      ++reads;
      be.linear(l);
    });
    const std::set<std::int32_t> active(ids.begin(), ids.end());
    const double grouped_s = seconds_per_call([&] { be.fused_moe(p); });
    // Ungrouped: each (token, expert) pair alone, as a per-token loop would.
    const double ungrouped_s = seconds_per_call([&] {
      for (std::int64_t r = 0; r < m * s.top_k; ++r) {
        fused_moe_params one = p;
        one.out = tensor::make(out.data() + (r / s.top_k) * s.hidden, dtype::f32, {1, s.hidden});
        one.x = tensor::make(x.data() + (r / s.top_k) * s.hidden, dtype::f32, {1, s.hidden});
        one.topk_ids = tensor::make(ids.data() + r, dtype::i32, {1, 1});
        one.topk_weights = tensor::make(weights.data() + r, dtype::f32, {1, 1});
        be.fused_moe(one);
      }
    });
    const double floor_bytes =
        static_cast<double>(active.size()) * static_cast<double>(expert_bytes);
    std::printf(
        "  %-15s %-4s M %3lld | active %3zu, linear reads %4lld (%.2f per active x 3) | "
        "%8.3f ms %6.1f GB/s | ungrouped %8.3f ms, %5.2fx\n",
        s.name, int4 ? "int4" : "fp32", static_cast<long long>(m), active.size(),
        static_cast<long long>(reads),
        static_cast<double>(reads) / 3.0 / static_cast<double>(active.size()), grouped_s * 1e3,
        floor_bytes / grouped_s / 1e9, ungrouped_s * 1e3, ungrouped_s / grouped_s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  const auto be = make_cpu_backend();
  std::printf(
      "bench_cpu_moe: %d threads; fused_moe per call, active experts' bytes / time, "
      "speed-up over the ungrouped per-(token, expert) baseline\n",
      omp_get_max_threads());
  const moe_shape shapes[] = {{"qwen3-moe-490m", 1024, 512, 32, 4},
                              {"qwen3-30b-a3b", 2048, 768, 128, 8}};
  for (const moe_shape& s : shapes) {
    if (quick && s.experts > 32) continue;
    for (const bool int4 : {false, true}) bench_case(*be, s, int4);
  }
  return 0;
}
