#include "train/model/causal_attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "train/model/matrix_ops.h"

namespace pagedserve::train {
namespace {

// One task is one (sequence, kv head): the heads of its group write its dk and dv rows, so
// tasks never write the same memory.
struct task_view {
  const attention_shape& s;
  std::int64_t b;
  std::int64_t kv;

  [[nodiscard]] std::int64_t q_stride() const { return s.num_heads * s.head_dim; }
  [[nodiscard]] std::int64_t kv_stride() const { return s.num_kv_heads * s.head_dim; }
  [[nodiscard]] std::int64_t row0() const { return b * s.seq_len; }
  [[nodiscard]] std::int64_t group() const { return s.num_heads / s.num_kv_heads; }
  [[nodiscard]] std::int64_t head(std::int64_t g) const { return kv * group() + g; }
  // Rows of one head's slice of a [rows, heads * hd] tensor.
  [[nodiscard]] matrix q_rows(const float* base, std::int64_t h) const {
    return {base + row0() * q_stride() + h * s.head_dim, s.seq_len, s.head_dim, q_stride()};
  }
  [[nodiscard]] matrix kv_rows(const float* base) const {
    return {base + row0() * kv_stride() + kv * s.head_dim, s.seq_len, s.head_dim, kv_stride()};
  }
  [[nodiscard]] output_matrix q_out(float* base, std::int64_t h) const {
    return {base + row0() * q_stride() + h * s.head_dim, q_stride()};
  }
  [[nodiscard]] output_matrix kv_out(float* base) const {
    return {base + row0() * kv_stride() + kv * s.head_dim, kv_stride()};
  }
  [[nodiscard]] float* probs(float* base, std::int64_t h) const {
    return base + (b * s.num_heads + h) * s.seq_len * s.seq_len;
  }
  [[nodiscard]] const float* probs(const float* base, std::int64_t h) const {
    return base + (b * s.num_heads + h) * s.seq_len * s.seq_len;
  }
};

// Scaled, causally masked softmax of each row of scores, in place.
void causal_softmax(float* scores, std::int64_t t, float scale) {
  for (std::int64_t i = 0; i < t; ++i) {
    float* row = scores + i * t;
    float max = -INFINITY;
    for (std::int64_t j = 0; j <= i; ++j) max = std::max(max, row[j] * scale);
    double sum = 0.0;
    for (std::int64_t j = 0; j <= i; ++j) {
      row[j] = std::exp(row[j] * scale - max);
      sum += row[j];
    }
    const auto inv = static_cast<float>(1.0 / sum);
    for (std::int64_t j = 0; j <= i; ++j) row[j] *= inv;
    std::fill(row + i + 1, row + t, 0.0F);
  }
}

void forward_task(const task_view& v, const float* q, const float* k, const float* vv, float* probs,
                  float* out, std::vector<float>& v_t) {
  const std::int64_t t = v.s.seq_len;
  const std::int64_t hd = v.s.head_dim;
  const float scale = 1.0F / std::sqrt(static_cast<float>(hd));
  transpose(v.kv_rows(vv), v_t.data());  // [hd, T]
  for (std::int64_t g = 0; g < v.group(); ++g) {
    const std::int64_t h = v.head(g);
    float* p = v.probs(probs, h);
    matmul_nt(v.q_rows(q, h), v.kv_rows(k), {p, t});
    causal_softmax(p, t, scale);
    matmul_nt({p, t, t, t}, {v_t.data(), hd, t, t}, v.q_out(out, h));
  }
}

}  // namespace

void attention_forward(const attention_shape& s, const float* q, const float* k, const float* v,
                       float* probs, float* out) {
  const std::int64_t tasks = s.batch * s.num_kv_heads;
#pragma omp parallel
  {
    std::vector<float> v_t(static_cast<std::size_t>(s.head_dim * s.seq_len));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < tasks; ++i) {
      forward_task({s, i / s.num_kv_heads, i % s.num_kv_heads}, q, k, v, probs, out, v_t);
    }
  }
}

namespace {

struct backward_scratch {
  std::vector<float> dp;    // [T, T]: dP, then dS
  std::vector<float> tt;    // [T, T]: a transpose of P or dS
  std::vector<float> k_t;   // [hd, T]
  std::vector<float> q_t;   // [hd, T]
  std::vector<float> do_t;  // [hd, T]
  std::vector<float> dk;    // [T, hd]: the group's sum
  std::vector<float> dv;    // [T, hd]
  std::vector<float> part;  // [T, hd]: one head's share

  explicit backward_scratch(const attention_shape& s)
      : dp(static_cast<std::size_t>(s.seq_len * s.seq_len)),
        tt(dp.size()),
        k_t(static_cast<std::size_t>(s.head_dim * s.seq_len)),
        q_t(k_t.size()),
        do_t(k_t.size()),
        dk(k_t.size()),
        dv(k_t.size()),
        part(k_t.size()) {}
};

// dS = P * (dP - rowsum(dP * P)) * scale, in place of dP.
void softmax_backward(const float* p, float* dp, std::int64_t t, float scale) {
  for (std::int64_t i = 0; i < t; ++i) {
    const float* pr = p + i * t;
    float* dr = dp + i * t;
    double dot = 0.0;
    for (std::int64_t j = 0; j <= i; ++j) dot += static_cast<double>(pr[j]) * dr[j];
    for (std::int64_t j = 0; j <= i; ++j) dr[j] = pr[j] * (dr[j] - static_cast<float>(dot)) * scale;
    std::fill(dr + i + 1, dr + t, 0.0F);
  }
}

void add_rows(std::vector<float>& into, const std::vector<float>& x) {
  for (std::size_t i = 0; i < into.size(); ++i) into[i] += x[i];
}

// A contiguous [rows, cols] block into rows of a strided tensor.
void scatter_rows(const std::vector<float>& src, std::int64_t rows, std::int64_t cols,
                  output_matrix dst) {
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy_n(src.data() + r * cols, cols, dst.data + r * dst.stride);
  }
}

void backward_task(const task_view& v, const float* q, const float* k, const float* vv,
                   const float* probs, const float* dout, float* dq, float* dk, float* dv,
                   backward_scratch& w) {
  const std::int64_t t = v.s.seq_len;
  const std::int64_t hd = v.s.head_dim;
  const float scale = 1.0F / std::sqrt(static_cast<float>(hd));
  transpose(v.kv_rows(k), w.k_t.data());
  std::fill(w.dk.begin(), w.dk.end(), 0.0F);
  std::fill(w.dv.begin(), w.dv.end(), 0.0F);
  for (std::int64_t g = 0; g < v.group(); ++g) {
    const std::int64_t h = v.head(g);
    const float* p = v.probs(probs, h);
    const matrix d_out = v.q_rows(dout, h);
    // dV += P^T dO
    transpose({p, t, t, t}, w.tt.data());
    transpose(d_out, w.do_t.data());
    matmul_nt({w.tt.data(), t, t, t}, {w.do_t.data(), hd, t, t}, {w.part.data(), hd});
    add_rows(w.dv, w.part);
    // dP = dO V^T, then dS
    matmul_nt(d_out, v.kv_rows(vv), {w.dp.data(), t});
    softmax_backward(p, w.dp.data(), t, scale);
    // dQ = dS K
    matmul_nt({w.dp.data(), t, t, t}, {w.k_t.data(), hd, t, t}, v.q_out(dq, h));
    // dK += dS^T Q
    transpose({w.dp.data(), t, t, t}, w.tt.data());
    transpose(v.q_rows(q, h), w.q_t.data());
    matmul_nt({w.tt.data(), t, t, t}, {w.q_t.data(), hd, t, t}, {w.part.data(), hd});
    add_rows(w.dk, w.part);
  }
  scatter_rows(w.dk, t, hd, v.kv_out(dk));
  scatter_rows(w.dv, t, hd, v.kv_out(dv));
}

}  // namespace

void attention_backward(const attention_shape& s, const float* q, const float* k, const float* v,
                        const float* probs, const float* dout, float* dq, float* dk, float* dv) {
  const std::int64_t tasks = s.batch * s.num_kv_heads;
#pragma omp parallel
  {
    backward_scratch scratch(s);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < tasks; ++i) {
      backward_task({s, i / s.num_kv_heads, i % s.num_kv_heads}, q, k, v, probs, dout, dq, dk, dv,
                    scratch);
    }
  }
}

}  // namespace pagedserve::train
