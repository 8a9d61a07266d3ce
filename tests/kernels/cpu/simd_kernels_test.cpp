// Every CPU kernel set this processor runs (AVX-512, AVX2 + FMA, plain x86-64) against a
// double-precision reference: matrix products whose shapes leave remainders in every tile
// direction and in k, and GQA attention over a paged cache with shuffled blocks and several
// query rows per task (a prefill chunk).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/simd/simd_kernels.h"
#include "tests/kernels/cpu/op_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cpu::simd::kernel_set;

class simd_kernels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    set_ = cpu::simd::kernels_named(GetParam());
    if (set_ == nullptr) GTEST_SKIP() << "this processor does not run " << GetParam();
  }
  const kernel_set* set_ = nullptr;
};

std::vector<double> reference_matmul(const std::vector<float>& x, const std::vector<float>& w,
                                     std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<double> out(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (std::int64_t t = 0; t < k; ++t) {
        acc +=
            double{x[static_cast<std::size_t>(i * k + t)]} * w[static_cast<std::size_t>(j * k + t)];
      }
      out[static_cast<std::size_t>(i * n + j)] = acc;
    }
  }
  return out;
}

TEST_P(simd_kernels, matmul_panels_match_the_reference_with_remainders_everywhere) {
  // m = 9: two 4-row tiles and one row; n = 50 in panels of 12 and 14 (6-column tiles and
  // single columns); k = 70: four 16-wide steps and a tail of 6 (AVX2: eight and 6).
  for (const std::int64_t m : {1, 3, 9}) {
    constexpr std::int64_t n = 50;
    constexpr std::int64_t k = 70;
    const auto x = random_floats(static_cast<std::size_t>(m * k), 1);
    const auto w = random_floats(static_cast<std::size_t>(n * k), 2);
    std::vector<float> out(static_cast<std::size_t>(m * n), -7.0F);
    cpu::simd::matmul_args a{x.data(), k, w.data(), k, out.data(), n, m, k};
    for (const auto& [begin, end] : {std::pair{0, 12}, std::pair{12, 26}, std::pair{26, 50}}) {
      set_->matmul_panel(a, begin, end);
    }
    EXPECT_LT(max_rel_error(out, reference_matmul(x, w, m, n, k)), 1e-5) << "m " << m;
  }
}

TEST_P(simd_kernels, matmul_with_strides_writes_only_its_panel) {
  constexpr std::int64_t m = 5;
  constexpr std::int64_t n = 20;
  constexpr std::int64_t k = 32;
  const auto x = random_floats(static_cast<std::size_t>(m * k), 3);
  const auto w = random_floats(static_cast<std::size_t>(n * k), 4);
  std::vector<float> out(static_cast<std::size_t>(m * n), -7.0F);
  cpu::simd::matmul_args a{x.data(), k, w.data(), k, out.data(), n, m, k};
  set_->matmul_panel(a, 6, 13);
  const std::vector<double> want = reference_matmul(x, w, m, n, k);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const auto at = static_cast<std::size_t>(i * n + j);
      if (j >= 6 && j < 13) {
        EXPECT_NEAR(out[at], want[at], 1e-4) << i << "," << j;
      } else {
        EXPECT_EQ(out[at], -7.0F) << i << "," << j;
      }
    }
  }
}

// A paged cache of one sequence: 3 kv heads, head_dim 20 (a 16-wide step and a tail),
// blocks of 4 in shuffled order, 37 positions (softmax: whole vectors and a tail), group of 2.
// Queries: the last num_rows positions (5: ten query vectors, scored by key tiles; 1: two, by dot
// products).
struct attention_case {
  static constexpr std::int64_t num_kv_heads = 3;
  static constexpr std::int64_t group = 2;
  static constexpr std::int64_t num_heads = num_kv_heads * group;
  static constexpr std::int64_t head_dim = 20;
  static constexpr std::int64_t block_size = 4;
  static constexpr std::int64_t context_len = 37;
  static constexpr std::int64_t num_blocks = 12;
  static constexpr std::int64_t slot_width = num_kv_heads * head_dim;

  std::vector<std::int32_t> table = {4, 1, 5, 11, 0, 9, 3, 7, 10, 2};
  std::vector<float> keys = random_floats(num_blocks * block_size * slot_width, 5);
  std::vector<float> values = random_floats(num_blocks * block_size * slot_width, 6);
  explicit attention_case(std::int64_t rows) : num_rows(rows) {
    for (std::int64_t r = 0; r < num_rows; ++r) num_keys.push_back(context_len - num_rows + r + 1);
  }

  std::int64_t num_rows;
  std::vector<float> query =
      random_floats(static_cast<std::size_t>(num_rows * num_heads * head_dim), 7, 2.0F);
  std::vector<std::int64_t> num_keys;

  [[nodiscard]] const float* row(const std::vector<float>& cache, std::int64_t pos,
                                 std::int64_t kv_head) const {
    const std::int64_t slot =
        table[static_cast<std::size_t>(pos / block_size)] * block_size + pos % block_size;
    return cache.data() + slot * slot_width + kv_head * head_dim;
  }

  [[nodiscard]] std::vector<double> reference(double scale) const {
    std::vector<double> out(query.size());
    for (std::int64_t r = 0; r < num_rows; ++r) {
      for (std::int64_t h = 0; h < num_heads; ++h) {
        const float* q = query.data() + (r * num_heads + h) * head_dim;
        const std::int64_t n = num_keys[static_cast<std::size_t>(r)];
        std::vector<double> p(static_cast<std::size_t>(n));
        for (std::int64_t t = 0; t < n; ++t) {
          double dot = 0.0;
          for (std::int64_t i = 0; i < head_dim; ++i)
            dot += double{q[i]} * row(keys, t, h / group)[i];
          p[static_cast<std::size_t>(t)] = dot * scale;
        }
        double top = -INFINITY;
        for (const double v : p) top = std::max(top, v);
        double sum = 0.0;
        for (double& v : p) sum += (v = std::exp(v - top));
        for (std::int64_t i = 0; i < head_dim; ++i) {
          double acc = 0.0;
          for (std::int64_t t = 0; t < n; ++t) {
            acc += p[static_cast<std::size_t>(t)] * row(values, t, h / group)[i];
          }
          out[static_cast<std::size_t>((r * num_heads + h) * head_dim + i)] = acc / sum;
        }
      }
    }
    return out;
  }
};

void check_attention(const kernel_set& set, std::int64_t num_rows) {
  const attention_case c(num_rows);
  const float scale = 1.0F / std::sqrt(float{attention_case::head_dim});
  std::vector<float> out(c.query.size(), -7.0F);
  std::vector<float> scratch(static_cast<std::size_t>(cpu::simd::attention_scratch_floats(
      num_rows, attention_case::group, attention_case::context_len, attention_case::head_dim)));
  for (std::int64_t kv_head = 0; kv_head < attention_case::num_kv_heads; ++kv_head) {
    cpu::simd::attention_task t;
    const std::int64_t first = kv_head * attention_case::group * attention_case::head_dim;
    t.query = c.query.data() + first;
    t.out = out.data() + first;
    t.key_cache = c.keys.data() + kv_head * attention_case::head_dim;
    t.value_cache = c.values.data() + kv_head * attention_case::head_dim;
    t.block_table = c.table.data();
    t.num_keys = c.num_keys.data();
    t.num_rows = num_rows;
    t.group_size = attention_case::group;
    t.num_heads = attention_case::num_heads;
    t.num_kv_heads = attention_case::num_kv_heads;
    t.head_dim = attention_case::head_dim;
    t.block_size = attention_case::block_size;
    t.scale = scale;
    t.scratch = scratch.data();
    set.attend(t);
  }
  EXPECT_LT(max_rel_error(out, c.reference(scale)), 1e-5) << num_rows << " query rows";
}

TEST_P(simd_kernels, attention_of_a_prefill_chunk_matches_the_reference) {
  check_attention(*set_, 5);
}

TEST_P(simd_kernels, attention_of_a_decode_row_matches_the_reference) { check_attention(*set_, 1); }

INSTANTIATE_TEST_SUITE_P(isa, simd_kernels,
                         ::testing::Values("avx512_vnni", "avx512", "avx2", "generic"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

TEST(simd_kernels_choice, the_active_set_is_one_this_processor_runs) {
  const kernel_set& active = cpu::simd::active_kernels();
  EXPECT_NE(cpu::simd::kernels_named(active.name), nullptr) << active.name;
}

}  // namespace
}  // namespace pagedserve::kernels::testing
