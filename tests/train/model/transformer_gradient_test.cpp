// The trainer's backward pass against central finite differences of its forward: for every
// parameter tensor, the analytic directional derivative along a random direction equals
// (L(p + eps u) - L(p - eps u)) / (2 eps). A wrong sign, a missing term or a transposed
// product anywhere in the backward shows up as a mismatch in that tensor.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "train/model/parameters.h"
#include "train/model/seeded_random.h"
#include "train/model/transformer.h"

namespace pagedserve::train {
namespace {

model_shape tiny_shape() {
  model_shape s;
  s.vocab_size = 37;
  s.hidden_size = 16;
  s.intermediate_size = 24;
  s.num_layers = 2;
  s.num_heads = 4;
  s.num_kv_heads = 2;
  s.head_dim = 6;
  s.max_position_embeddings = 16;
  return s;
}

// Larger weights than a real initialisation, so every nonlinearity is off its linear part,
// and norm gains away from 1.
std::vector<float> random_params(const parameter_layout& layout, std::uint64_t seed) {
  std::vector<float> p(static_cast<std::size_t>(layout.total()));
  seeded_random random(seed);
  for (const parameter_tensor& t : layout.tensors()) {
    for (std::int64_t i = 0; i < t.numel; ++i) {
      const double x = random.normal();
      p[static_cast<std::size_t>(t.offset + i)] =
          static_cast<float>(t.shape.size() == 1 ? 1.0 + 0.3 * x : 0.4 * x);
    }
  }
  return p;
}

struct batch {
  std::vector<std::int32_t> tokens;
  std::vector<std::int32_t> targets;
};

batch random_batch(std::int64_t rows, std::int64_t vocab, std::uint64_t seed) {
  seeded_random random(seed);
  batch b;
  for (std::int64_t r = 0; r < rows; ++r) {
    b.tokens.push_back(static_cast<std::int32_t>(random.below(vocab)));
    b.targets.push_back(static_cast<std::int32_t>(random.below(vocab)));
  }
  return b;
}

double loss_at(transformer& model, const std::vector<float>& params, const batch& b) {
  model.forward(params, b.tokens.data());
  return model.loss_and_logit_gradient(b.targets.data());
}

void expect_gradients_match_central_differences(const model_shape& shape) {
  const parameter_layout layout(shape);
  transformer model(layout, 2, 7);
  std::vector<float> params = random_params(layout, 7);
  const batch b = random_batch(model.rows(), shape.vocab_size, 11);
  const double loss = loss_at(model, params, b);
  EXPECT_GT(loss, 0.0);
  std::vector<float> grads;
  model.backward(params, grads);

  seeded_random random(3);
  constexpr double eps = 1e-3;
  for (const parameter_tensor& t : layout.tensors()) {
    std::vector<float> u(static_cast<std::size_t>(t.numel));
    double analytic = 0.0;
    for (std::int64_t i = 0; i < t.numel; ++i) {
      u[static_cast<std::size_t>(i)] = random.uniform() < 0.5 ? -1.0F : 1.0F;
      analytic += static_cast<double>(grads[static_cast<std::size_t>(t.offset + i)]) *
                  u[static_cast<std::size_t>(i)];
    }
    std::vector<float> plus = params;
    std::vector<float> minus = params;
    for (std::int64_t i = 0; i < t.numel; ++i) {
      const auto at = static_cast<std::size_t>(t.offset + i);
      plus[at] += static_cast<float>(eps) * u[static_cast<std::size_t>(i)];
      minus[at] -= static_cast<float>(eps) * u[static_cast<std::size_t>(i)];
    }
    const double numeric = (loss_at(model, plus, b) - loss_at(model, minus, b)) / (2.0 * eps);
    std::printf("%-45s analytic %+.6f numeric %+.6f\n", t.name.c_str(), analytic, numeric);
    EXPECT_NEAR(analytic, numeric, 1e-3 + 2e-3 * std::abs(numeric)) << t.name;
  }
}

TEST(TransformerGradient, EveryTensorMatchesCentralDifferencesWithTiedEmbeddings) {
  expect_gradients_match_central_differences(tiny_shape());
}

TEST(TransformerGradient, EveryTensorMatchesCentralDifferencesWithASeparateLmHead) {
  model_shape shape = tiny_shape();
  shape.tie_word_embeddings = false;
  expect_gradients_match_central_differences(shape);
}

}  // namespace
}  // namespace pagedserve::train
