// kv_write and paged_attention against a double-precision reference that attends over each
// sequence's keys and values held contiguously (no paging in the reference).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "tests/kernels/cpu/op_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

constexpr std::int64_t num_blocks = 24;
constexpr std::int64_t block_size = 4;
constexpr std::int64_t num_kv_heads = 2;
constexpr std::int64_t num_heads = 6;
constexpr std::int64_t head_dim = 16;
constexpr std::int64_t kv_row = num_kv_heads * head_dim;

struct test_sequence {
  std::int64_t context_len = 0;  // tokens in the cache after the step
  std::int64_t num_new = 0;      // query rows: the last num_new positions
  std::vector<std::int32_t> blocks;
  std::vector<float> keys;    // [context_len, kv_heads, head_dim]
  std::vector<float> values;  // same
  std::vector<float> query;   // [num_new, heads, head_dim]
};

std::vector<test_sequence> make_sequences() {
  // A decode (1 of 13), a prefill chunk (5 of 8), a whole prefill (11 of 11).
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{13, 1}, {8, 5}, {11, 11}};
  std::vector<std::int32_t> free_blocks(num_blocks);
  std::iota(free_blocks.begin(), free_blocks.end(), 0);
  std::shuffle(free_blocks.begin(), free_blocks.end(), std::mt19937(99));
  std::vector<test_sequence> seqs;
  std::uint32_t seed = 20;
  for (auto [context_len, num_new] : shapes) {
    test_sequence s;
    s.context_len = context_len;
    s.num_new = num_new;
    for (std::int64_t b = 0; b < (context_len + block_size - 1) / block_size; ++b) {
      s.blocks.push_back(free_blocks.back());
      free_blocks.pop_back();
    }
    s.keys = random_floats(static_cast<std::size_t>(context_len * kv_row), seed++);
    s.values = random_floats(static_cast<std::size_t>(context_len * kv_row), seed++);
    s.query = random_floats(static_cast<std::size_t>(num_new * num_heads * head_dim), seed++, 2.0F);
    seqs.push_back(std::move(s));
  }
  return seqs;
}

std::int32_t slot_of(const test_sequence& s, std::int64_t pos) {
  return static_cast<std::int32_t>(
      s.blocks[static_cast<std::size_t>(pos / block_size)] * block_size + pos % block_size);
}

// Writes every sequence's keys/values into the pools through kv_write.
void fill_cache(backend& be, const std::vector<test_sequence>& seqs, const buffer& key_cache,
                const buffer& value_cache, float key_scale = 1.0F, float value_scale = 1.0F) {
  for (const test_sequence& s : seqs) {
    std::vector<std::int32_t> slots;
    for (std::int64_t pos = 0; pos < s.context_len; ++pos) slots.push_back(slot_of(s, pos));
    buffer k = to_backend(be, s.keys, {s.context_len, num_kv_heads, head_dim});
    buffer v = to_backend(be, s.values, {s.context_len, num_kv_heads, head_dim});
    buffer sm = to_backend(be, slots);
    be.kv_write({key_cache.view(), value_cache.view(), k.view(), v.view(), sm.view(), key_scale,
                 value_scale});
  }
}

std::vector<double> reference_attention(const test_sequence& s, double scale) {
  std::vector<double> out(static_cast<std::size_t>(s.num_new * num_heads * head_dim));
  for (std::int64_t j = 0; j < s.num_new; ++j) {
    const std::int64_t num_keys = s.context_len - s.num_new + j + 1;
    for (std::int64_t h = 0; h < num_heads; ++h) {
      const std::int64_t kvh = h / (num_heads / num_kv_heads);
      const float* q = &s.query[static_cast<std::size_t>((j * num_heads + h) * head_dim)];
      std::vector<double> w(static_cast<std::size_t>(num_keys));
      for (std::int64_t t = 0; t < num_keys; ++t) {
        const float* k = &s.keys[static_cast<std::size_t>(t * kv_row + kvh * head_dim)];
        double dot = 0.0;
        for (std::int64_t i = 0; i < head_dim; ++i) dot += double{q[i]} * k[i];
        w[static_cast<std::size_t>(t)] = dot * scale;
      }
      double max_w = -INFINITY;
      for (double x : w) max_w = std::max(max_w, x);
      double sum = 0.0;
      for (double& x : w) sum += (x = std::exp(x - max_w));
      for (std::int64_t i = 0; i < head_dim; ++i) {
        double acc = 0.0;
        for (std::int64_t t = 0; t < num_keys; ++t) {
          acc += w[static_cast<std::size_t>(t)] *
                 s.values[static_cast<std::size_t>(t * kv_row + kvh * head_dim + i)];
        }
        out[static_cast<std::size_t>((j * num_heads + h) * head_dim + i)] = acc / sum;
      }
    }
  }
  return out;
}

TEST(cpu_attention, kv_write_places_rows_at_their_slots) {
  cpu_backend be;
  const auto seqs = make_sequences();
  buffer kc = be.allocate(dtype::f32, {num_blocks, block_size, num_kv_heads, head_dim});
  buffer vc = be.allocate(dtype::f32, {num_blocks, block_size, num_kv_heads, head_dim});
  fill_cache(be, seqs, kc, vc);
  const auto keys = to_host(be, kc);
  const auto values = to_host(be, vc);
  for (const test_sequence& s : seqs) {
    for (std::int64_t pos = 0; pos < s.context_len; ++pos) {
      for (std::int64_t i = 0; i < kv_row; ++i) {
        const auto at = static_cast<std::size_t>(slot_of(s, pos) * kv_row + i);
        ASSERT_EQ(keys[at], s.keys[static_cast<std::size_t>(pos * kv_row + i)]);
        ASSERT_EQ(values[at], s.values[static_cast<std::size_t>(pos * kv_row + i)]);
      }
    }
  }
}

// paged_attention over every sequence's new rows at once; fills `want` from the reference.
std::vector<float> attend_all(backend& be, const std::vector<test_sequence>& seqs, const buffer& kc,
                              const buffer& vc, std::vector<double>& want, float key_scale = 1.0F,
                              float value_scale = 1.0F) {
  std::vector<float> query;
  std::vector<std::int32_t> query_start = {0};
  std::vector<std::int32_t> context_lens;
  const std::size_t max_blocks = 4;
  std::vector<std::int32_t> tables(seqs.size() * max_blocks, 0);
  const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    const test_sequence& s = seqs[i];
    query.insert(query.end(), s.query.begin(), s.query.end());
    query_start.push_back(query_start.back() + static_cast<std::int32_t>(s.num_new));
    context_lens.push_back(static_cast<std::int32_t>(s.context_len));
    std::copy(s.blocks.begin(), s.blocks.end(),
              tables.begin() + static_cast<std::ptrdiff_t>(i * max_blocks));
    const auto ref = reference_attention(s, scale);
    want.insert(want.end(), ref.begin(), ref.end());
  }
  const std::int64_t n = query_start.back();
  buffer qb = to_backend(be, query, {n, num_heads, head_dim});
  buffer ob = be.allocate(dtype::f32, {n, num_heads, head_dim});
  buffer qs = to_backend(be, query_start);
  buffer cl = to_backend(be, context_lens);
  buffer bt = be.allocate(
      dtype::i32, {static_cast<std::int64_t>(seqs.size()), static_cast<std::int64_t>(max_blocks)});
  be.copy_from_host(bt.view(), tables.data());
  paged_attention_params p;
  p.out = ob.view();
  p.query = qb.view();
  p.key_cache = kc.view();
  p.value_cache = vc.view();
  p.query_start = qs.view();
  p.context_lens = cl.view();
  p.block_tables = bt.view();
  p.scale = static_cast<float>(scale);
  p.max_context_len = 13;
  p.key_scale = key_scale;
  p.value_scale = value_scale;
  be.paged_attention(p);
  return to_host(be, ob);
}

TEST(cpu_attention, mixed_batch_of_decode_chunk_and_prefill_matches_reference) {
  cpu_backend be;
  const auto seqs = make_sequences();
  buffer kc = be.allocate(dtype::f32, {num_blocks, block_size, num_kv_heads, head_dim});
  buffer vc = be.allocate(dtype::f32, {num_blocks, block_size, num_kv_heads, head_dim});
  fill_cache(be, seqs, kc, vc);
  std::vector<double> want;
  const std::vector<float> got = attend_all(be, seqs, kc, vc, want);
  EXPECT_LT(max_rel_error(got, want), 1e-5);
}

// e4m3 code -> value by its definition (sign, 4-bit exponent with bias 7, 3-bit mantissa;
// exponent 0 is subnormal), independent of kernels/fp8_e4m3.h.
double e4m3_value(std::uint8_t code) {
  const int e = (code >> 3) & 15;
  const int m = code & 7;
  const double magnitude = e == 0 ? m * std::ldexp(1.0, -9) : (8 + m) * std::ldexp(1.0, e - 10);
  return (code & 0x80) != 0 ? -magnitude : magnitude;
}

// An fp8 cache holds e4m3(x / scale): each stored code is the nearest e4m3 value to x / scale,
// and attention over it equals attention over the decoded values (code * scale).
TEST(cpu_attention, fp8_cache_stores_the_nearest_codes_and_attends_over_them) {
  cpu_backend be;
  auto seqs = make_sequences();
  buffer kc = be.allocate(dtype::u8, {num_blocks, block_size, num_kv_heads, head_dim});
  buffer vc = be.allocate(dtype::u8, {num_blocks, block_size, num_kv_heads, head_dim});
  const float key_scale = 0.01F;  // x / scale reaches 100: normal codes; small x: subnormal
  const float value_scale = 0.5F;
  fill_cache(be, seqs, kc, vc, key_scale, value_scale);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(kc.view().numel()));
  be.copy_to_host(codes.data(), kc.view());
  for (test_sequence& s : seqs) {
    for (std::int64_t pos = 0; pos < s.context_len; ++pos) {
      for (std::int64_t i = 0; i < kv_row; ++i) {
        const std::uint8_t code = codes[static_cast<std::size_t>(slot_of(s, pos) * kv_row + i)];
        float& key = s.keys[static_cast<std::size_t>(pos * kv_row + i)];
        const double target = static_cast<double>(key) / key_scale;
        // No e4m3 value is nearer the target than the stored one.
        for (int other = 0; other < 256; ++other) {
          if ((other & 0x7F) == 0x7F) continue;
          ASSERT_LE(std::abs(e4m3_value(code) - target),
                    std::abs(e4m3_value(static_cast<std::uint8_t>(other)) - target) + 1e-12);
        }
        key = static_cast<float>(e4m3_value(code) * key_scale);  // the reference's keys
      }
    }
  }
  std::vector<std::uint8_t> value_codes(codes.size());
  be.copy_to_host(value_codes.data(), vc.view());
  for (test_sequence& s : seqs) {
    for (std::int64_t pos = 0; pos < s.context_len; ++pos) {
      for (std::int64_t i = 0; i < kv_row; ++i) {
        const auto at = static_cast<std::size_t>(slot_of(s, pos) * kv_row + i);
        s.values[static_cast<std::size_t>(pos * kv_row + i)] =
            static_cast<float>(e4m3_value(value_codes[at]) * value_scale);
      }
    }
  }
  std::vector<double> want;
  const std::vector<float> got = attend_all(be, seqs, kc, vc, want, key_scale, value_scale);
  EXPECT_LT(max_rel_error(got, want), 1e-5);
}

}  // namespace
}  // namespace pagedserve::kernels::testing
