// The device's logits processing (logits_processing_op.cu) against the host's
// (runtime/sampling/logits_processing.h): on random rows with NaN, +-inf, zeros and signed
// logits, random penalties, logit_bias and min_tokens bans, the processed logits must be the
// host's to the bit; and the packed counts the device builds (count_tokens) and keeps
// (count_sampled) must be token_counts', entry for entry.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/sampling/logits_processing.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_logits_processing = cuda_vs_cpu;

constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();
constexpr float k_inf = std::numeric_limits<float>::infinity();

struct processed_row {
  std::vector<float> logits;
  sampling_params params;
  std::vector<logit_edit> edits;
  std::vector<token_id> prompt, generated;
  bool penalized = false;
};

std::vector<float> special_logits(std::int64_t vocab, std::mt19937& gen) {
  std::normal_distribution<float> normal(0.0F, 4.0F);
  std::vector<float> v(static_cast<std::size_t>(vocab));
  for (float& x : v) x = normal(gen);
  const float specials[] = {k_nan, k_inf, -k_inf, 0.0F, -0.0F};
  for (std::size_t i = 0; i < v.size(); i += 37) v[i] = specials[(i / 37) % 5];
  return v;
}

processed_row make_row(std::int64_t vocab, int shape, std::mt19937& gen) {
  std::uniform_int_distribution<token_id> token(0, static_cast<token_id>(vocab - 1));
  std::uniform_real_distribution<float> unit(-1.0F, 1.0F);
  processed_row r;
  r.logits = special_logits(vocab, gen);
  for (int i = 0; i < 50; ++i) r.prompt.push_back(token(gen));
  for (int i = 0; i < 80; ++i) r.generated.push_back(token(gen) % 64);  // repeats
  r.penalized = shape % 3 != 2;
  if (r.penalized) {
    r.params.presence_penalty = 2.0F * unit(gen);
    r.params.frequency_penalty = 2.0F * unit(gen);
    r.params.repetition_penalty = shape % 3 == 0 ? 1.0F + std::abs(unit(gen)) : 0.7F;
  }
  if (shape % 2 == 0) {
    for (int i = 0; i < 40; ++i) r.params.logit_bias.emplace_back(token(gen), 100.0F * unit(gen));
    std::sort(r.params.logit_bias.begin(), r.params.logit_bias.end());
    r.params.logit_bias.erase(
        std::unique(r.params.logit_bias.begin(), r.params.logit_bias.end(),
                    [](const auto& a, const auto& b) { return a.first == b.first; }),
        r.params.logit_bias.end());
    r.params.min_tokens = 100;
  }
  if (shape % 3 == 1) {  // allowed_token_ids, and a bad word's ban
    for (int i = 0; i < 300; ++i) r.params.allowed_token_ids.push_back(token(gen));
    std::sort(r.params.allowed_token_ids.begin(), r.params.allowed_token_ids.end());
    r.params.allowed_token_ids.erase(
        std::unique(r.params.allowed_token_ids.begin(), r.params.allowed_token_ids.end()),
        r.params.allowed_token_ids.end());
  }
  const std::vector<token_id> held = {
      r.params.logit_bias.empty() ? 1 : r.params.logit_bias[0].first,
      static_cast<token_id>(vocab - 1)};
  const std::vector<token_id> banned = {
      r.params.allowed_token_ids.empty() ? 2 : r.params.allowed_token_ids[7]};
  r.edits = logit_edits(r.params, held, r.generated.size(), banned);
  return r;
}

TEST_P(cuda_logits_processing, ProcessedLogitsAreTheHostsToTheBit) {
  for (const std::int64_t vocab : sweep<std::int64_t>({151936, 4099}, {5003})) {
    std::mt19937 gen(static_cast<std::uint32_t>(vocab));
    std::vector<processed_row> rows;
    for (int shape = 0; shape < 6; ++shape) rows.push_back(make_row(vocab, shape, gen));
    const auto num_rows = static_cast<std::int64_t>(rows.size());
    // Host: each row's expected logits. Device inputs: rows, edits, counts built on the device.
    std::vector<float> logits, want;
    std::vector<sampling_row> settings;
    std::vector<std::int32_t> edits, entries;
    std::int32_t slot = 0;
    for (const processed_row& r : rows) {
      logits.insert(logits.end(), r.logits.begin(), r.logits.end());
      token_counts counts;
      counts.reset(r.prompt, r.generated);
      std::vector<float> expected = r.logits;
      process_logits(expected, r.params, r.edits, &counts);
      want.insert(want.end(), expected.begin(), expected.end());
      sampling_row s;
      s.presence_penalty = r.params.presence_penalty;
      s.frequency_penalty = r.params.frequency_penalty;
      s.repetition_penalty = r.params.repetition_penalty;
      s.edit_begin = static_cast<std::int32_t>(edits.size() / 2);
      s.edit_count = static_cast<std::int32_t>(r.edits.size());
      for (const logit_edit& e : r.edits) {
        edits.push_back(e.token);
        edits.push_back(std::bit_cast<std::int32_t>(e.bias));
      }
      s.allow_begin = static_cast<std::int32_t>(edits.size() / 2);
      s.allow_count = static_cast<std::int32_t>(r.params.allowed_token_ids.size());
      for (const token_id t : r.params.allowed_token_ids) edits.insert(edits.end(), {t, 0});
      if (r.penalized) {
        s.penalty_slot = slot;
        for (const token_id t : r.prompt) entries.insert(entries.end(), {slot, t, 0});
        for (const token_id t : r.generated) entries.insert(entries.end(), {slot, t, 1});
      }
      ++slot;
      settings.push_back(s);
    }
    buffer logits_gpu = gpu_->allocate(dtype::f32, {num_rows, vocab});
    gpu_->copy_from_host(logits_gpu.view(), logits.data());
    buffer rows_gpu = gpu_->allocate(dtype::i32, {num_rows, sampling_row_words});
    gpu_->copy_from_host(rows_gpu.view(), settings.data());
    const auto num_edits = static_cast<std::int64_t>(edits.size() / 2);
    buffer edits_gpu = gpu_->allocate(dtype::i32, {num_edits, 2});
    gpu_->copy_from_host(edits_gpu.view(), edits.data());
    const auto num_entries = static_cast<std::int64_t>(entries.size() / 3);
    buffer entries_gpu = gpu_->allocate(dtype::i32, {num_entries, 3});
    gpu_->copy_from_host(entries_gpu.view(), entries.data());
    buffer counts_gpu = gpu_->allocate(dtype::i32, {num_rows, vocab});
    gpu_->fill_zero(counts_gpu.view());
    gpu_->count_tokens({counts_gpu.view(), entries_gpu.view()});
    gpu_->process_logits({logits_gpu.view(), rows_gpu.view(), edits_gpu.view(), counts_gpu.view()});
    std::vector<float> got(logits.size());
    gpu_->copy_to_host(got.data(), logits_gpu.view());
    for (std::size_t i = 0; i < got.size(); ++i) {
      const bool same = std::memcmp(&got[i], &want[i], sizeof(float)) == 0 ||
                        (std::isnan(got[i]) && std::isnan(want[i]));
      ASSERT_TRUE(same) << "vocab " << vocab << " row " << i / static_cast<std::size_t>(vocab)
                        << " token " << i % static_cast<std::size_t>(vocab) << ": device " << got[i]
                        << ", host " << want[i];
    }
  }
}

// count_tokens then count_sampled (rows without a slot count nothing) against token_counts.
TEST_P(cuda_logits_processing, DeviceCountsAreTokenCounts) {
  constexpr std::int64_t vocab = 300;
  const std::vector<token_id> prompt = {5, 5, 7, 299, 0};
  const std::vector<token_id> generated = {7, 8, 8, 8};
  std::vector<std::int32_t> entries;
  for (const token_id t : prompt) entries.insert(entries.end(), {1, t, 0});
  for (const token_id t : generated) entries.insert(entries.end(), {1, t, 1});
  buffer counts_gpu = gpu_->allocate(dtype::i32, {2, vocab});
  gpu_->fill_zero(counts_gpu.view());
  buffer entries_gpu =
      gpu_->allocate(dtype::i32, {static_cast<std::int64_t>(entries.size() / 3), 3});
  gpu_->copy_from_host(entries_gpu.view(), entries.data());
  gpu_->count_tokens({counts_gpu.view(), entries_gpu.view()});
  // Two sampled rows: one counts into slot 1 (token 299), one has no slot.
  std::vector<sampling_row> settings(2);
  settings[0].penalty_slot = 1;
  const std::vector<std::int32_t> sampled = {299, 3};
  buffer rows_gpu = gpu_->allocate(dtype::i32, {2, sampling_row_words});
  gpu_->copy_from_host(rows_gpu.view(), settings.data());
  buffer ids_gpu = gpu_->allocate(dtype::i32, {2});
  gpu_->copy_from_host(ids_gpu.view(), sampled.data());
  gpu_->count_sampled({counts_gpu.view(), ids_gpu.view(), rows_gpu.view()});
  std::vector<std::int32_t> got(2 * vocab);
  gpu_->copy_to_host(got.data(), counts_gpu.view());
  token_counts want;
  want.reset(prompt, generated);
  want.add_generated(299);
  for (token_id t = 0; t < vocab; ++t) {
    EXPECT_EQ(got[static_cast<std::size_t>(t)], 0) << "slot 0, token " << t;
    EXPECT_EQ(static_cast<std::uint32_t>(got[static_cast<std::size_t>(vocab + t)]), want.packed(t))
        << "slot 1, token " << t;
  }
}

INSTANTIATE_TEST_SUITE_P(logits, cuda_logits_processing, ::testing::Values(dtype::f32), dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
