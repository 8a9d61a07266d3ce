// Sampling on the device (sample_op.cu) against the host sampler (runtime/sampling), on the
// same logits, settings and random streams: greedy, temperature, top-k, top-p, min-p and
// their combinations, over rows with ties at the cut, NaN, -inf and +inf logits. The device
// computes the host's weights to the bit, so the picks must be the host's, every one.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/sampling/philox.h"
#include "runtime/sampling/sampler.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_sample = cuda_vs_cpu;

struct sampled_row {
  std::vector<float> logits;
  sampling_params params;
  std::uint64_t seed = 0;
  std::uint64_t sequence_index = 0;
  std::uint64_t draw = 0;
};

// The device's picks for `rows` (each row's logits of the same vocabulary).
std::vector<std::int32_t> sample_on_device(backend& gpu, const std::vector<sampled_row>& rows) {
  const auto num_rows = static_cast<std::int64_t>(rows.size());
  const auto vocab = static_cast<std::int64_t>(rows.front().logits.size());
  std::vector<float> logits;
  std::vector<sampling_row> settings;
  for (const sampled_row& r : rows) {
    logits.insert(logits.end(), r.logits.begin(), r.logits.end());
    sampling_row s;
    s.temperature = r.params.temperature;
    s.top_p = r.params.top_p;
    s.min_p = r.params.min_p;
    s.top_k = r.params.top_k;
    s.seed = r.seed;
    s.sequence_index = r.sequence_index;
    s.draw = r.draw;
    settings.push_back(s);
  }
  buffer logits_gpu = gpu.allocate(dtype::f32, {num_rows, vocab});
  gpu.copy_from_host(logits_gpu.view(), logits.data());
  buffer rows_gpu = gpu.allocate(dtype::i32, {num_rows, sampling_row_words});
  gpu.copy_from_host(rows_gpu.view(), settings.data());
  buffer ids_gpu = gpu.allocate(dtype::i32, {num_rows});
  gpu.sample({ids_gpu.view(), logits_gpu.view(), rows_gpu.view()});
  std::vector<std::int32_t> ids(rows.size());
  gpu.copy_to_host(ids.data(), ids_gpu.view());
  return ids;
}

token_id sample_on_host(const sampled_row& r) {
  sampler_state state(r.seed, r.sequence_index);
  for (std::uint64_t d = 0; d < r.draw; ++d) (void)state.next_uniform();
  return sample(r.logits, r.params, state);
}

sampling_params make_params(float temperature, std::int32_t top_k, float top_p, float min_p) {
  sampling_params p;
  p.temperature = temperature;
  p.top_k = top_k;
  p.top_p = top_p;
  p.min_p = min_p;
  return p;
}

// Row shapes: smooth random logits, a plateau of equal top logits (ties at every cut), a
// few huge outliers, NaN and -inf sprinkled in, two +inf, and nothing finite at all.
std::vector<float> make_logits(int shape, std::int64_t vocab, std::mt19937& gen) {
  std::normal_distribution<float> normal(0.0F, 3.0F);
  std::vector<float> v(static_cast<std::size_t>(vocab));
  for (float& x : v) x = normal(gen);
  const auto at = [&](std::int64_t i) -> float& { return v[static_cast<std::size_t>(i % vocab)]; };
  switch (shape) {
    case 1:  // plateau: 40 tokens share the top logit
      for (int i = 0; i < 40; ++i) at(i * 97 + 5) = 12.0F;
      break;
    case 2:  // outliers dominate
      at(vocab / 3) = 30.0F;
      at(vocab / 2) = 29.5F;
      at(7) = 29.0F;
      break;
    case 3:  // NaN and -inf mixed in
      for (std::int64_t i = 0; i < vocab; i += 7) at(i) = std::numeric_limits<float>::quiet_NaN();
      for (std::int64_t i = 3; i < vocab; i += 11) at(i) = -INFINITY;
      break;
    case 4:  // two +inf tokens take all the mass
      at(vocab - 2) = INFINITY;
      at(17) = INFINITY;
      break;
    case 5:  // nothing to choose
      for (float& x : v) x = -INFINITY;
      at(4) = std::numeric_limits<float>::quiet_NaN();
      break;
    default:
      break;
  }
  return v;
}

TEST_P(cuda_sample, EveryPickIsTheHostSamplersPick) {
  const std::vector<sampling_params> settings = {
      make_params(0.0F, 0, 1.0F, 0.0F),    // greedy
      make_params(1.0F, 0, 1.0F, 0.0F),    // pure temperature
      make_params(0.7F, 50, 1.0F, 0.0F),   // top-k
      make_params(1.0F, 0, 0.9F, 0.0F),    // top-p
      make_params(1.0F, 0, 0.3F, 0.0F),    // a small nucleus
      make_params(0.8F, 20, 0.8F, 0.05F),  // all three
      make_params(1.3F, 0, 1.0F, 0.1F),    // min-p
      make_params(1.0F, 1, 1.0F, 0.0F),    // top-1 is greedy
      make_params(0.9F, 10, 0.95F, 0.0F),  // top-k within the plateau's ties
      make_params(2.0F, 999, 1.0F, 0.0F),  // top-k near the size of the small vocabulary
  };
  std::mt19937 gen(123);
  std::uniform_int_distribution<std::uint64_t> any;
  for (std::int64_t vocab : sweep<std::int64_t>({1000, 151936}, {1000, 5000})) {
    std::vector<sampled_row> rows;
    for (const sampling_params& params : settings) {
      for (int shape = 0; shape < 6; ++shape) {
        const int repeats = emulated() ? 2 : 8;
        for (int rep = 0; rep < repeats; ++rep) {
          sampled_row r;
          r.logits = make_logits(shape, vocab, gen);
          r.params = params;
          r.seed = any(gen);
          r.sequence_index = any(gen) % 4;
          r.draw = any(gen) % 5;
          rows.push_back(std::move(r));
        }
      }
    }
    const std::vector<std::int32_t> on_device = sample_on_device(*gpu_, rows);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const sampled_row& r = rows[i];
      EXPECT_EQ(on_device[i], sample_on_host(r))
          << "vocab " << vocab << " row " << i << ": temperature " << r.params.temperature
          << " top_k " << r.params.top_k << " top_p " << r.params.top_p << " min_p "
          << r.params.min_p << " shape " << (i / (emulated() ? 2 : 8)) % 6;
    }
  }
}

// Equal logits at temperature 1 weigh 1 each, so the pick is floor(u * vocab): the device's
// uniform, read straight off the token, must be philox_uniform's.
TEST_P(cuda_sample, TheDeviceDrawsTheHostsUniforms) {
  constexpr std::int64_t vocab = 4096;
  std::vector<sampled_row> rows;
  const std::uint64_t big = std::uint64_t{1} << 40;
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{42}, big + 7}) {
    for (std::uint64_t sequence : {std::uint64_t{0}, std::uint64_t{3}, big}) {
      for (std::uint64_t draw : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{999}, big}) {
        sampled_row r;
        r.logits.assign(static_cast<std::size_t>(vocab), 0.5F);
        r.params = make_params(1.0F, 0, 1.0F, 0.0F);
        r.seed = seed;
        r.sequence_index = sequence;
        r.draw = draw;
        rows.push_back(std::move(r));
      }
    }
  }
  const std::vector<std::int32_t> on_device = sample_on_device(*gpu_, rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double u = philox_uniform(rows[i].seed, rows[i].sequence_index, rows[i].draw);
    EXPECT_EQ(on_device[i], static_cast<std::int32_t>(std::floor(u * vocab))) << "row " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(logits, cuda_sample, ::testing::Values(dtype::f32), dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
