#pragma once
// adamw: AdamW (Loshchilov & Hutter, decoupled weight decay) with bias correction, global
// gradient-norm clipping, and the learning rate as linear warm-up then cosine decay to a
// floor (the schedule of GPT-2/Llama pre-training).

#include <cstdint>
#include <vector>

#include "train/model/parameters.h"

namespace pagedserve::train {

struct adamw_options {
  double beta1 = 0.9;
  double beta2 = 0.95;
  double epsilon = 1e-8;
  double weight_decay = 0.1;   // matrices only (parameter_tensor::decays)
  double max_grad_norm = 1.0;  // 0: no clipping
};

struct lr_schedule {
  double peak = 1e-3;
  double floor = 1e-4;
  std::int64_t warmup_steps = 100;
  std::int64_t total_steps = 1000;

  // The rate of step `step` (0-based): peak * (step + 1) / warmup during warm-up, then
  // floor + (peak - floor) * (1 + cos(pi * progress)) / 2.
  [[nodiscard]] double at(std::int64_t step) const;
};

class adamw {
 public:
  adamw(const parameter_layout& layout, adamw_options options);

  // One update with learning rate `lr`; clips `grads` in place first. Returns the gradient
  // norm before clipping.
  double step(std::vector<float>& params, std::vector<float>& grads, double lr);

  [[nodiscard]] std::int64_t num_steps() const { return num_steps_; }
  // The moments, for checkpoints (same layout as the parameters).
  [[nodiscard]] std::vector<float>& first_moment() { return m_; }
  [[nodiscard]] std::vector<float>& second_moment() { return v_; }
  void set_num_steps(std::int64_t n) { num_steps_ = n; }

 private:
  const parameter_layout& layout_;
  adamw_options options_;
  std::vector<float> m_;
  std::vector<float> v_;
  std::int64_t num_steps_ = 0;
};

}  // namespace pagedserve::train
