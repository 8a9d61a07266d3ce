// Each CPU op against a naive double-precision reference on random inputs.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "tests/kernels/cpu/op_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

constexpr double tolerance = 1e-5;

std::vector<double> reference_rms_norm(const std::vector<float>& x, const std::vector<float>& w,
                                       double eps) {
  const std::size_t width = w.size();
  std::vector<double> out(x.size());
  for (std::size_t r = 0; r < x.size() / width; ++r) {
    double sum_sq = 0.0;
    for (std::size_t i = 0; i < width; ++i) sum_sq += double{x[r * width + i]} * x[r * width + i];
    const double inv = 1.0 / std::sqrt(sum_sq / static_cast<double>(width) + eps);
    for (std::size_t i = 0; i < width; ++i) out[r * width + i] = x[r * width + i] * inv * w[i];
  }
  return out;
}

class cpu_ops : public ::testing::Test {
 protected:
  buffer pairs_buffer(const std::vector<std::int32_t>& flat) {
    buffer b = be_.allocate(dtype::i32, {static_cast<std::int64_t>(flat.size() / 2), 2});
    be_.copy_from_host(b.view(), flat.data());
    return b;
  }

  std::vector<std::int32_t> ints(const buffer& b) {
    std::vector<std::int32_t> host(static_cast<std::size_t>(b.view().numel()));
    be_.copy_to_host(host.data(), b.view());
    return host;
  }

  cpu_backend be_;
};

TEST_F(cpu_ops, embedding_gathers_table_rows) {
  const auto table = random_floats(10 * 6, 1);
  const std::vector<std::int32_t> ids = {3, 0, 9, 3};
  buffer t = to_backend(be_, table, {10, 6});
  buffer i = to_backend(be_, ids);
  buffer out = be_.allocate(dtype::f32, {4, 6});
  be_.embedding({out.view(), t.view(), i.view()});
  std::vector<double> want;
  for (std::int32_t id : ids) {
    for (int c = 0; c < 6; ++c) want.push_back(table[static_cast<std::size_t>(id * 6 + c)]);
  }
  EXPECT_EQ(max_rel_error(to_host(be_, out), want), 0.0);
}

TEST_F(cpu_ops, rms_norm_matches_reference) {
  const auto x = random_floats(5 * 96, 2, 3.0F);
  const auto w = random_floats(96, 3);
  buffer xb = to_backend(be_, x, {5, 96});
  buffer wb = to_backend(be_, w, {96});
  buffer out = be_.allocate(dtype::f32, {5, 96});
  be_.rms_norm({out.view(), xb.view(), wb.view(), 1e-5F});
  EXPECT_LT(max_rel_error(to_host(be_, out), reference_rms_norm(x, w, 1e-5)), tolerance);
}

TEST_F(cpu_ops, per_head_rms_norm_is_rms_norm_over_head_rows_in_place) {
  const auto x = random_floats(3 * 4 * 16, 4, 2.0F);  // [tokens, heads, head_dim]
  const auto w = random_floats(16, 5);
  buffer xb = to_backend(be_, x, {3, 4, 16});
  buffer wb = to_backend(be_, w, {16});
  const tensor rows = xb.view().reshape({12, 16});
  be_.rms_norm({rows, rows, wb.view(), 1e-6F});
  EXPECT_LT(max_rel_error(to_host(be_, xb), reference_rms_norm(x, w, 1e-6)), tolerance);
}

TEST_F(cpu_ops, add_rms_norm_updates_residual_and_normalises_sum) {
  const auto residual = random_floats(4 * 64, 6);
  const auto x = random_floats(4 * 64, 7);
  const auto w = random_floats(64, 8);
  buffer rb = to_backend(be_, residual, {4, 64});
  buffer xb = to_backend(be_, x, {4, 64});
  buffer wb = to_backend(be_, w, {64});
  buffer out = be_.allocate(dtype::f32, {4, 64});
  be_.add_rms_norm({rb.view(), xb.view(), out.view(), wb.view(), 1e-6F});
  std::vector<float> sum(x.size());
  std::vector<double> want_sum(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    sum[i] = residual[i] + x[i];
    want_sum[i] = double{residual[i]} + x[i];
  }
  EXPECT_LT(max_rel_error(to_host(be_, rb), want_sum), tolerance);
  EXPECT_LT(max_rel_error(to_host(be_, out), reference_rms_norm(sum, w, 1e-6)), tolerance);
}

void check_linear(backend& be, std::int64_t rows, std::int64_t in, std::int64_t out_f,
                  bool with_bias) {
  const auto x = random_floats(static_cast<std::size_t>(rows * in), 9);
  const auto w = random_floats(static_cast<std::size_t>(out_f * in), 10);
  const auto bias = random_floats(static_cast<std::size_t>(out_f), 11);
  buffer xb = to_backend(be, x, {rows, in});
  buffer wb = to_backend(be, w, {out_f, in});
  buffer bb = to_backend(be, bias, {out_f});
  buffer ob = be.allocate(dtype::f32, {rows, out_f});
  be.linear({ob.view(), xb.view(), wb.view(), with_bias ? bb.view() : tensor{}});
  std::vector<double> want(static_cast<std::size_t>(rows * out_f));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t o = 0; o < out_f; ++o) {
      double acc = with_bias ? bias[static_cast<std::size_t>(o)] : 0.0;
      for (std::int64_t i = 0; i < in; ++i) {
        acc += double{x[static_cast<std::size_t>(r * in + i)]} *
               w[static_cast<std::size_t>(o * in + i)];
      }
      want[static_cast<std::size_t>(r * out_f + o)] = acc;
    }
  }
  EXPECT_LT(max_rel_error(to_host(be, ob), want), tolerance)
      << rows << "x" << in << " -> " << out_f << (with_bias ? " with bias" : "");
}

TEST_F(cpu_ops, linear_matches_reference_for_one_and_many_rows) {
  check_linear(be_, 1, 70, 33, false);
  check_linear(be_, 1, 70, 33, true);
  check_linear(be_, 9, 128, 50, false);
  check_linear(be_, 9, 128, 50, true);
}

TEST_F(cpu_ops, rope_rotates_halves_by_position_times_frequency) {
  const std::int64_t tokens = 5;
  const std::int64_t heads = 3;
  const std::int64_t hd = 8;
  const auto x = random_floats(static_cast<std::size_t>(tokens * heads * hd), 12);
  const std::vector<std::int32_t> positions = {0, 1, 7, 42, 200};
  std::vector<float> inv_freq(hd / 2);
  for (std::size_t i = 0; i < inv_freq.size(); ++i) {
    inv_freq[i] = static_cast<float>(1.0 / std::pow(10000.0, 2.0 * static_cast<double>(i) / hd));
  }
  buffer xb = to_backend(be_, x, {tokens, heads, hd});
  buffer pb = to_backend(be_, positions);
  buffer fb = to_backend(be_, inv_freq, {hd / 2});
  be_.rope({xb.view(), pb.view(), fb.view()});
  std::vector<double> want(x.size());
  for (std::int64_t t = 0; t < tokens; ++t) {
    for (std::int64_t h = 0; h < heads; ++h) {
      const std::size_t base = static_cast<std::size_t>((t * heads + h) * hd);
      for (std::int64_t i = 0; i < hd / 2; ++i) {
        const double angle =
            positions[static_cast<std::size_t>(t)] * double{inv_freq[static_cast<std::size_t>(i)]};
        const double a = x[base + static_cast<std::size_t>(i)];
        const double b = x[base + static_cast<std::size_t>(i + hd / 2)];
        want[base + static_cast<std::size_t>(i)] = a * std::cos(angle) - b * std::sin(angle);
        want[base + static_cast<std::size_t>(i + hd / 2)] =
            b * std::cos(angle) + a * std::sin(angle);
      }
    }
  }
  EXPECT_LT(max_rel_error(to_host(be_, xb), want), 1e-4);
}

TEST_F(cpu_ops, silu_mul_add_and_gather_rows_match_reference) {
  const auto gate = random_floats(6 * 10, 13, 4.0F);
  const auto up = random_floats(6 * 10, 14);
  buffer gb = to_backend(be_, gate, {6, 10});
  buffer ub = to_backend(be_, up, {6, 10});
  buffer ob = be_.allocate(dtype::f32, {6, 10});
  be_.silu_mul({ob.view(), gb.view(), ub.view()});
  std::vector<double> want_silu(gate.size());
  std::vector<double> want_add(gate.size());
  for (std::size_t i = 0; i < gate.size(); ++i) {
    want_silu[i] = gate[i] / (1.0 + std::exp(-double{gate[i]})) * up[i];
    want_add[i] = double{gate[i]} + up[i];
  }
  EXPECT_LT(max_rel_error(to_host(be_, ob), want_silu), tolerance);

  be_.add({ob.view(), gb.view(), ub.view()});
  EXPECT_LT(max_rel_error(to_host(be_, ob), want_add), tolerance);

  const std::vector<std::int32_t> rows = {5, 0, 2};
  buffer ib = to_backend(be_, rows);
  buffer rb = be_.allocate(dtype::f32, {3, 10});
  be_.gather_rows({rb.view(), gb.view(), ib.view()});
  std::vector<double> want_rows;
  for (std::int32_t r : rows) {
    for (int c = 0; c < 10; ++c) want_rows.push_back(gate[static_cast<std::size_t>(r * 10 + c)]);
  }
  EXPECT_EQ(max_rel_error(to_host(be_, rb), want_rows), 0.0);
}

TEST_F(cpu_ops, scatter_tokens_puts_each_source_value_at_its_destination) {
  buffer dst = to_backend(be_, std::vector<std::int32_t>{10, 11, 12, 13, 14, 15});
  buffer src = to_backend(be_, std::vector<std::int32_t>{100, 101, 102});
  buffer pairs = pairs_buffer({4, 2, 0, 0, 1, 2, 5, 2});  // (dst, src) per row
  be_.scatter_tokens({dst.view(), src.view(), pairs.view()});
  EXPECT_EQ(ints(dst), (std::vector<std::int32_t>{100, 102, 12, 13, 102, 102}));
  EXPECT_EQ(ints(src), (std::vector<std::int32_t>{100, 101, 102})) << "src is only read";
}

TEST_F(cpu_ops, scatter_tokens_without_pairs_leaves_dst_untouched) {
  buffer dst = to_backend(be_, std::vector<std::int32_t>{7, 8, 9});
  buffer src = to_backend(be_, std::vector<std::int32_t>{1});
  buffer pairs = pairs_buffer({});
  ASSERT_EQ(pairs.view().dim(0), 0);
  be_.scatter_tokens({dst.view(), src.view(), pairs.view()});
  EXPECT_EQ(ints(dst), (std::vector<std::int32_t>{7, 8, 9}));
}

// Death tests re-run the binary (threadsafe style): the process has OpenMP and BLAS threads.
TEST_F(cpu_ops, scatter_tokens_aborts_on_an_index_out_of_range) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  buffer dst = to_backend(be_, std::vector<std::int32_t>{0, 0, 0});
  buffer src = to_backend(be_, std::vector<std::int32_t>{5, 6});
  const auto scatter = [&](const std::vector<std::int32_t>& flat) {
    buffer pairs = pairs_buffer(flat);
    be_.scatter_tokens({dst.view(), src.view(), pairs.view()});
  };
  scatter({2, 1});  // in range: no death
  EXPECT_EQ(ints(dst), (std::vector<std::int32_t>{0, 0, 6}));
  EXPECT_DEATH(scatter({0, 0, 3, 1}), "scatter_tokens: to >= 0 && to < num_dst");
  EXPECT_DEATH(scatter({-1, 0}), "scatter_tokens: to >= 0 && to < num_dst");
  EXPECT_DEATH(scatter({0, 2}), "scatter_tokens: from >= 0 && from < num_src");
  EXPECT_DEATH(scatter({0, -1}), "scatter_tokens: from >= 0 && from < num_src");
}

TEST_F(cpu_ops, scatter_tokens_aborts_on_a_wrong_shape_or_type) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  buffer dst = to_backend(be_, std::vector<std::int32_t>{0, 0, 0});
  buffer src = to_backend(be_, std::vector<std::int32_t>{5, 6});
  buffer flat = to_backend(be_, std::vector<std::int32_t>{0, 1});
  EXPECT_DEATH(be_.scatter_tokens({dst.view(), src.view(), flat.view()}), "scatter_tokens");
  buffer floats = to_backend(be_, std::vector<float>{5.0F, 6.0F}, {2});
  buffer pairs = pairs_buffer({0, 1});
  EXPECT_DEATH(be_.scatter_tokens({dst.view(), floats.view(), pairs.view()}), "scatter_tokens");
}

TEST_F(cpu_ops, default_marker_has_passed_at_once_and_keeps_no_clock) {
  const auto before = be_.make_marker();
  const auto after = be_.make_marker();
  EXPECT_TRUE(after->passed()) << "never recorded";
  before->record();
  buffer sum = be_.allocate(dtype::f32, {4});
  buffer ones = to_backend(be_, std::vector<float>(4, 1.0F), {4});
  be_.add({sum.view(), ones.view(), ones.view()});
  after->record();
  EXPECT_TRUE(after->passed());
  after->wait();
  EXPECT_EQ(to_host(be_, sum), std::vector<float>(4, 2.0F));
  EXPECT_EQ(after->seconds_since(*before), std::nullopt);
}

}  // namespace
}  // namespace pagedserve::kernels::testing
