// The mixture-of-experts ops on the CUDA backend (kernels/cuda/moe_route_op.cu,
// fused_moe_op.cu, elementwise_op.cu) against the CPU reference on the same inputs: routing
// ids and load counts exactly, weights to fp32 rounding, the experts' weighted sums to the
// compute type's tolerance. Shapes stay small: the emulator runs them in every CI run.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_moe = cuda_vs_cpu;

template <class T>
std::vector<T> download_as(backend& be, const tensor& t) {
  std::vector<T> host(static_cast<std::size_t>(t.numel()));
  be.synchronize();
  be.copy_to_host(host.data(), t);
  return host;
}

// Router logits whose experts are a random permutation per row, 0.25 apart (no ties), or
// with `ties` drawn from three values only (ties everywhere: the lower index must win).
std::vector<float> router_logits(std::int64_t n, std::int64_t experts, bool ties,
                                 std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<float> v(static_cast<std::size_t>(n * experts));
  std::vector<int> order(static_cast<std::size_t>(experts));
  for (std::int64_t t = 0; t < n; ++t) {
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), gen);
    for (std::int64_t e = 0; e < experts; ++e) {
      const int rank = order[static_cast<std::size_t>(e)];
      v[static_cast<std::size_t>(t * experts + e)] =
          ties ? static_cast<float>(rank % 3) : 0.25F * static_cast<float>(rank) - 4.0F;
    }
  }
  return v;
}

TEST_P(cuda_moe, RouteGivesTheCpuIdsWeightsAndLoad) {
  for (const std::int64_t experts : {8, 60}) {
    for (const std::int64_t k : {1, 2, 4}) {
      for (const std::int64_t n : {1, 5, 33}) {
        for (const bool renormalize : {false, true}) {
          const bool ties = n == 5;
          const std::string what = "E " + std::to_string(experts) + " k " + std::to_string(k) +
                                   " n " + std::to_string(n) + (renormalize ? " renorm" : "") +
                                   (ties ? " ties" : "");
          const auto logits = router_logits(n, experts, ties, static_cast<std::uint32_t>(n * k));
          std::vector<std::int32_t> ids[2];
          std::vector<float> weights[2];
          std::vector<std::int32_t> load[2];
          int side = 0;
          for (backend* be : {gpu_.get(), cpu_.get()}) {
            buffer l = be->allocate(dtype::f32, {n, experts});
            be->copy_from_host(l.view(), logits.data());
            buffer i = be->allocate(dtype::i32, {n, k});
            buffer w = be->allocate(dtype::f32, {n, k});
            buffer counts = be->allocate(dtype::i32, {experts});
            be->fill_zero(counts.view());
            be->moe_route({i.view(), w.view(), l.view(), renormalize, counts.view()});
            ids[side] = download_as<std::int32_t>(*be, i.view());
            weights[side] = download_as<float>(*be, w.view());
            load[side++] = download_as<std::int32_t>(*be, counts.view());
          }
          EXPECT_EQ(ids[0], ids[1]) << what;
          EXPECT_EQ(load[0], load[1]) << what;
          EXPECT_LE(max_rel_error(weights[0], weights[1]), 1e-5) << what;
        }
      }
    }
  }
}

// top_k distinct experts per token, drawn from the first `used` experts only.
std::vector<std::int32_t> random_ids(std::int64_t n, std::int64_t k, std::int64_t used,
                                     std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<std::int32_t> pool(static_cast<std::size_t>(used));
  std::vector<std::int32_t> ids;
  for (std::int64_t t = 0; t < n; ++t) {
    std::iota(pool.begin(), pool.end(), 0);
    std::shuffle(pool.begin(), pool.end(), gen);
    ids.insert(ids.end(), pool.begin(), pool.begin() + k);
  }
  return ids;
}

struct moe_case {
  std::int64_t experts, k, hidden, inter, used;  // used: experts any token may choose
};

// The inputs of one fused_moe on one backend; the scratch is sized for `max_n` tokens.
struct moe_inputs {
  buffer x, ids, weights, gate, up, down, out, scratch;

  moe_inputs(backend& be, const moe_case& c, std::int64_t n, std::int64_t max_n)
      : x(be.allocate(be.compute_type(), {n, c.hidden})),
        ids(be.allocate(dtype::i32, {n, c.k})),
        weights(be.allocate(dtype::f32, {n, c.k})),
        gate(be.allocate(be.compute_type(), {c.experts, c.inter, c.hidden})),
        up(be.allocate(be.compute_type(), {c.experts, c.inter, c.hidden})),
        down(be.allocate(be.compute_type(), {c.experts, c.hidden, c.inter})),
        out(be.allocate(be.compute_type(), {n, c.hidden})),
        scratch(be.allocate(
            dtype::u8,
            {std::max<std::int64_t>(
                be.fused_moe_scratch_bytes({max_n, c.k, c.experts, c.hidden, c.inter}), 1)})) {}

  [[nodiscard]] fused_moe_params params(std::int64_t experts) const {
    return {out.view(),
            x.view(),
            ids.view(),
            weights.view(),
            {experts, gate.view(), {}},
            {experts, up.view(), {}},
            {experts, down.view(), {}},
            scratch.view()};
  }
};

TEST_P(cuda_moe, FusedMoeMatchesTheCpuExperts) {
  const moe_case cases[] = {
      {8, 1, 64, 48, 8},   {8, 2, 64, 48, 8},   {8, 4, 64, 48, 8}, {60, 1, 64, 48, 60},
      {60, 2, 64, 48, 60}, {60, 4, 64, 48, 60}, {8, 2, 72, 80, 8},  // not multiples of the tiles
      {60, 4, 64, 48, 6},                                           // most experts get no rows
      {8, 2, 36, 20, 8},  // k not a multiple of 8: the tensor-core kernel stages element-wise
  };
  const std::int64_t max_n = 33;
  std::uint32_t seed = 1;
  for (const moe_case& c : cases) {
    const auto gate = random(static_cast<std::size_t>(c.experts * c.inter * c.hidden), seed++);
    const auto up = random(static_cast<std::size_t>(c.experts * c.inter * c.hidden), seed++);
    const auto down = random(static_cast<std::size_t>(c.experts * c.hidden * c.inter), seed++);
    moe_inputs on_gpu(*gpu_, c, max_n, max_n);
    moe_inputs on_cpu(*cpu_, c, max_n, max_n);
    for (moe_inputs* in : {&on_gpu, &on_cpu}) {
      backend& be = in == &on_gpu ? *gpu_ : *cpu_;
      be.upload_f32(in->gate.view(), gate);
      be.upload_f32(in->up.view(), up);
      be.upload_f32(in->down.view(), down);
    }
    for (const std::int64_t n : {1, 5, 33}) {
      const std::string what = "E " + std::to_string(c.experts) + " k " + std::to_string(c.k) +
                               " hidden " + std::to_string(c.hidden) + " inter " +
                               std::to_string(c.inter) + " used " + std::to_string(c.used) + " n " +
                               std::to_string(n);
      const auto x = random(static_cast<std::size_t>(n * c.hidden), seed++);
      const auto ids = random_ids(n, c.k, c.used, seed++);
      std::vector<float> w(static_cast<std::size_t>(n * c.k));
      std::mt19937 gen(seed++);
      for (float& v : w) v = std::uniform_real_distribution<float>(0.05F, 1.0F)(gen);
      fused_moe_params p[2];
      int side = 0;
      for (moe_inputs* in : {&on_gpu, &on_cpu}) {
        backend& be = in == &on_gpu ? *gpu_ : *cpu_;
        fused_moe_params& q = p[side++];
        q = in->params(c.experts);
        q.x = q.x.rows(0, n);
        q.out = q.out.rows(0, n);
        q.topk_ids = q.topk_ids.rows(0, n);
        q.topk_weights = q.topk_weights.rows(0, n);
        be.upload_f32(q.x, x);
        be.copy_from_host(q.topk_ids, ids.data());
        be.copy_from_host(q.topk_weights, w.data());
        be.fused_moe(q);
      }
      expect_close(p[0].out, p[1].out, "fused_moe " + what);
      // Deterministic: a second call gives the same bits.
      const auto first = download(*gpu_, p[0].out);
      gpu_->fused_moe(p[0]);
      EXPECT_EQ(download(*gpu_, p[0].out), first) << what;
    }
  }
}

// Route and experts recorded once into a graph, replayed on new logits and inputs.
TEST_P(cuda_moe, CapturedRouteAndExpertsReplayOnNewInputs) {
  const moe_case c{8, 2, 64, 48, 8};
  const std::int64_t n = 5;
  moe_inputs on_gpu(*gpu_, c, n, n);
  moe_inputs on_cpu(*cpu_, c, n, n);
  std::uint32_t seed = 500;
  for (buffer moe_inputs::*member : {&moe_inputs::gate, &moe_inputs::up, &moe_inputs::down}) {
    const auto v = random(static_cast<std::size_t>((on_gpu.*member).view().numel()), seed++);
    gpu_->upload_f32((on_gpu.*member).view(), v);
    cpu_->upload_f32((on_cpu.*member).view(), v);
  }
  buffer logits_gpu = gpu_->allocate(dtype::f32, {n, c.experts});
  buffer logits_cpu = cpu_->allocate(dtype::f32, {n, c.experts});
  const auto run = [&](backend& be, moe_inputs& in, const buffer& logits) {
    be.moe_route({in.ids.view(), in.weights.view(), logits.view(), true, {}});
    be.fused_moe(in.params(c.experts));
  };
  auto graph = gpu_->capture([&] { run(*gpu_, on_gpu, logits_gpu); });
  if (graph == nullptr) GTEST_SKIP() << "no graph capture on this backend";
  for (int step = 0; step < 2; ++step) {
    const auto logits = router_logits(n, c.experts, false, seed++);
    const auto x = random(static_cast<std::size_t>(n * c.hidden), seed++);
    gpu_->copy_from_host(logits_gpu.view(), logits.data());
    cpu_->copy_from_host(logits_cpu.view(), logits.data());
    gpu_->upload_f32(on_gpu.x.view(), x);
    cpu_->upload_f32(on_cpu.x.view(), x);
    graph->replay();
    run(*cpu_, on_cpu, logits_cpu);
    EXPECT_EQ(download_as<std::int32_t>(*gpu_, on_gpu.ids.view()),
              download_as<std::int32_t>(*cpu_, on_cpu.ids.view()))
        << "step " << step;
    expect_close(on_gpu.out.view(), on_cpu.out.view(), "step " + std::to_string(step));
  }
}

TEST_P(cuda_moe, SigmoidGatedAddMatchesTheCpu) {
  const std::int64_t hidden = 64;
  for (const std::int64_t n : {1, 5, 33}) {
    const auto out = random(static_cast<std::size_t>(n * hidden), 700);
    const auto x = random(static_cast<std::size_t>(n * hidden), 701);
    const auto gate = random(static_cast<std::size_t>(n), 702, 4.0F);
    buffer out_gpu = upload(*gpu_, out, {n, hidden});
    buffer out_cpu = upload(*cpu_, out, {n, hidden});
    buffer x_gpu = upload(*gpu_, x, {n, hidden});
    buffer x_cpu = upload(*cpu_, x, {n, hidden});
    buffer gate_gpu = upload(*gpu_, gate, {n, 1});
    buffer gate_cpu = upload(*cpu_, gate, {n, 1});
    gpu_->sigmoid_gated_add({out_gpu.view(), x_gpu.view(), gate_gpu.view()});
    cpu_->sigmoid_gated_add({out_cpu.view(), x_cpu.view(), gate_cpu.view()});
    expect_close(out_gpu.view(), out_cpu.view(), "sigmoid_gated_add n " + std::to_string(n));
  }
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_moe, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
