#include "train/model/adamw.h"

#include "train/model/fixed_order_sum.h"

#include <cmath>
#include <numbers>

namespace pagedserve::train {

double lr_schedule::at(std::int64_t step) const {
  if (step < warmup_steps) {
    return peak * static_cast<double>(step + 1) / static_cast<double>(warmup_steps);
  }
  const std::int64_t decay_steps = std::max<std::int64_t>(1, total_steps - warmup_steps);
  const double progress =
      std::min(1.0, static_cast<double>(step - warmup_steps) / static_cast<double>(decay_steps));
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

adamw::adamw(const parameter_layout& layout, adamw_options options)
    : layout_(layout),
      options_(options),
      m_(static_cast<std::size_t>(layout.total()), 0.0F),
      v_(static_cast<std::size_t>(layout.total()), 0.0F) {}

namespace {

double global_norm(const std::vector<float>& grads) {
  return std::sqrt(fixed_order_sum(static_cast<std::int64_t>(grads.size()), [&](std::int64_t i) {
    const auto g = static_cast<double>(grads[static_cast<std::size_t>(i)]);
    return g * g;
  }));
}

}  // namespace

double adamw::step(std::vector<float>& params, std::vector<float>& grads, double lr) {
  const double norm = global_norm(grads);
  const double clip = options_.max_grad_norm > 0.0 && norm > options_.max_grad_norm
                          ? options_.max_grad_norm / norm
                          : 1.0;
  ++num_steps_;
  const double correction1 = 1.0 - std::pow(options_.beta1, static_cast<double>(num_steps_));
  const double correction2 = 1.0 - std::pow(options_.beta2, static_cast<double>(num_steps_));
  const auto b1 = static_cast<float>(options_.beta1);
  const auto b2 = static_cast<float>(options_.beta2);
  for (const parameter_tensor& t : layout_.tensors()) {
    const auto decay = static_cast<float>(t.decays ? lr * options_.weight_decay : 0.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = t.offset; i < t.offset + t.numel; ++i) {
      const auto at = static_cast<std::size_t>(i);
      const float g = grads[at] * static_cast<float>(clip);
      m_[at] = b1 * m_[at] + (1.0F - b1) * g;
      v_[at] = b2 * v_[at] + (1.0F - b2) * g * g;
      const double m_hat = m_[at] / correction1;
      const double v_hat = v_[at] / correction2;
      params[at] -= decay * params[at];
      params[at] -= static_cast<float>(lr * m_hat / (std::sqrt(v_hat) + options_.epsilon));
    }
  }
  return norm;
}

}  // namespace pagedserve::train
