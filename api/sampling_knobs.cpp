#include "api/sampling_knobs.h"

#include <cmath>

namespace pagedserve {

std::vector<double> sampling_knob_values(const sampling_params& params) {
  std::vector<double> values;
  values.reserve(k_num_sampling_knobs);
  for_each_sampling_knob(
      [&](const auto& knob) { values.push_back(static_cast<double>(params.*knob.member)); });
  return values;
}

bool set_sampling_knob_values(sampling_params& params, const std::vector<double>& values) {
  if (values.size() != k_num_sampling_knobs) return false;
  sampling_params updated = params;
  bool fits = true;
  std::size_t i = 0;
  for_each_sampling_knob([&](const auto& knob) {
    using T = typename std::decay_t<decltype(knob)>::value_type;
    const double x = values[i++];
    if constexpr (std::is_integral_v<T>) {
      // The type's own range, not the knob's: an out-of-range value must reach validate().
      const bool integral = std::isfinite(x) && x == std::floor(x) &&
                            x >= static_cast<double>(std::numeric_limits<T>::min()) &&
                            x <= static_cast<double>(std::numeric_limits<T>::max());
      fits = fits && integral;
      if (integral) updated.*knob.member = static_cast<T>(x);
    } else {
      updated.*knob.member = static_cast<T>(x);
    }
  });
  if (fits) params = std::move(updated);
  return fits;
}

}  // namespace pagedserve
