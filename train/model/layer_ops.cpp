#include "train/model/layer_ops.h"

#include "train/model/fixed_order_sum.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace pagedserve::train {

void rms_norm_forward(const float* x, const float* gain, std::int64_t rows, std::int64_t n,
                      double eps, float* y, float* rstd) {
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * n;
    double sum = 0.0;
    for (std::int64_t i = 0; i < n; ++i) sum += static_cast<double>(xr[i]) * xr[i];
    const auto s = static_cast<float>(1.0 / std::sqrt(sum / static_cast<double>(n) + eps));
    rstd[r] = s;
    float* yr = y + r * n;
    for (std::int64_t i = 0; i < n; ++i) yr[i] = xr[i] * s * gain[i];
  }
}

// With x_hat = x * s and s = (mean(x^2) + eps)^(-1/2):
//   dx = s * (dy * gain) - x * s^3 / n * sum(dy * gain * x),  dgain += sum over rows dy * x_hat.
void rms_norm_backward(const float* x, const float* gain, const float* rstd, const float* dy,
                       std::int64_t rows, std::int64_t n, float* dx, float* dgain) {
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * n;
      const float* dyr = dy + r * n;
      const float s = rstd[r];
      double dot = 0.0;
      for (std::int64_t i = 0; i < n; ++i) dot += static_cast<double>(dyr[i]) * gain[i] * xr[i];
      const auto k = static_cast<float>(dot * s * s * s / static_cast<double>(n));
      float* dxr = dx + r * n;
      for (std::int64_t i = 0; i < n; ++i) dxr[i] = s * dyr[i] * gain[i] - xr[i] * k;
    }
    // The gain's gradient by column ranges, so no two threads add into one element.
    const std::int64_t team = omp_get_num_threads();
    const std::int64_t me = omp_get_thread_num();
    const std::int64_t c0 = n * me / team;
    const std::int64_t c1 = n * (me + 1) / team;
    for (std::int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * n;
      const float* dyr = dy + r * n;
      for (std::int64_t c = c0; c < c1; ++c) dgain[c] += dyr[c] * xr[c] * rstd[r];
    }
  }
}

rope_table make_rope_table(std::int64_t head_dim, double theta, std::int64_t max_positions) {
  rope_table table;
  table.head_dim = head_dim;
  const std::int64_t half = head_dim / 2;
  table.cos.resize(static_cast<std::size_t>(max_positions * half));
  table.sin.resize(table.cos.size());
  for (std::int64_t p = 0; p < max_positions; ++p) {
    for (std::int64_t i = 0; i < half; ++i) {
      // As HF computes it: inv_freq in fp32 from theta^(2i/d), angle = position * inv_freq.
      const auto inv_freq = static_cast<float>(
          1.0 / std::pow(theta, static_cast<double>(2 * i) / static_cast<double>(head_dim)));
      const float angle = static_cast<float>(p) * inv_freq;
      table.cos[static_cast<std::size_t>(p * half + i)] = std::cos(angle);
      table.sin[static_cast<std::size_t>(p * half + i)] = std::sin(angle);
    }
  }
  return table;
}

namespace {

// Rotates every head of every row by +angle (sign 1) or -angle (sign -1).
void rotate(const rope_table& table, const std::int64_t* positions, std::int64_t rows,
            std::int64_t num_heads, float* x, float sign) {
  const std::int64_t d = table.head_dim;
  const std::int64_t half = d / 2;
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* c = table.cos.data() + positions[r] * half;
    const float* s = table.sin.data() + positions[r] * half;
    for (std::int64_t h = 0; h < num_heads; ++h) {
      float* head = x + (r * num_heads + h) * d;
      for (std::int64_t i = 0; i < half; ++i) {
        const float a = head[i];
        const float b = head[i + half];
        head[i] = a * c[i] - sign * b * s[i];
        head[i + half] = b * c[i] + sign * a * s[i];
      }
    }
  }
}

}  // namespace

void rope_forward(const rope_table& table, const std::int64_t* positions, std::int64_t rows,
                  std::int64_t num_heads, float* x) {
  rotate(table, positions, rows, num_heads, x, 1.0F);
}

void rope_backward(const rope_table& table, const std::int64_t* positions, std::int64_t rows,
                   std::int64_t num_heads, float* d) {
  rotate(table, positions, rows, num_heads, d, -1.0F);
}

namespace {
float sigmoid(float x) { return 1.0F / (1.0F + std::exp(-x)); }
}  // namespace

void swiglu_forward(const float* gate, const float* up, std::int64_t count, float* m) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) m[i] = gate[i] * sigmoid(gate[i]) * up[i];
}

// silu'(g) = sigmoid(g) * (1 + g * (1 - sigmoid(g))).
void swiglu_backward(const float* gate, const float* up, const float* dm, std::int64_t count,
                     float* dgate, float* dup) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    const float s = sigmoid(gate[i]);
    dup[i] = dm[i] * gate[i] * s;
    dgate[i] = dm[i] * up[i] * s * (1.0F + gate[i] * (1.0F - s));
  }
}

namespace {

// log(sum(exp(row))) with the max taken out, in double.
double log_sum_exp(const float* row, std::int64_t vocab, float max) {
  double sum = 0.0;
  for (std::int64_t v = 0; v < vocab; ++v) sum += std::exp(static_cast<double>(row[v] - max));
  return static_cast<double>(max) + std::log(sum);
}

}  // namespace

double cross_entropy_forward_backward(float* logits, const std::int32_t* targets, std::int64_t rows,
                                      std::int64_t vocab) {
  const double inv_rows = 1.0 / static_cast<double>(rows);
  const double total = fixed_order_sum(rows, [&](std::int64_t r) {
    float* row = logits + r * vocab;
    const float max = *std::max_element(row, row + vocab);
    const double lse = log_sum_exp(row, vocab, max);
    const double loss = lse - row[targets[r]];
    for (std::int64_t v = 0; v < vocab; ++v) {
      row[v] = static_cast<float>(std::exp(static_cast<double>(row[v]) - lse) * inv_rows);
    }
    row[targets[r]] -= static_cast<float>(inv_rows);
    return loss;
  });
  return total * inv_rows;
}

double cross_entropy(const float* logits, const std::int32_t* targets, std::int64_t rows,
                     std::int64_t vocab) {
  const double total = fixed_order_sum(rows, [&](std::int64_t r) {
    const float* row = logits + r * vocab;
    const float max = *std::max_element(row, row + vocab);
    return log_sum_exp(row, vocab, max) - row[targets[r]];
  });
  return total / static_cast<double>(rows);
}

void embedding_forward(const float* embed, const std::int32_t* tokens, std::int64_t rows,
                       std::int64_t n, float* out) {
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy_n(embed + static_cast<std::int64_t>(tokens[r]) * n, n, out + r * n);
  }
}

// One thread: rows of one token may repeat, and their adds must not race.
void embedding_backward(const std::int32_t* tokens, const float* dy, std::int64_t rows,
                        std::int64_t n, float* dembed) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float* g = dembed + static_cast<std::int64_t>(tokens[r]) * n;
    const float* d = dy + r * n;
    for (std::int64_t i = 0; i < n; ++i) g[i] += d[i];
  }
}

void add_into(float* y, const float* x, std::int64_t count) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) y[i] += x[i];
}

}  // namespace pagedserve::train
