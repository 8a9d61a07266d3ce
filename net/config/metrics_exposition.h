#pragma once
// metrics_exposition: writes metric families as Prometheus text format 0.0.4, each with its
// # HELP and # TYPE lines first, every sample labelled model_name="<served name>". Names get
// the pagedserve: prefix (vLLM's are vllm:).

#include <cstdint>
#include <string>
#include <string_view>

#include "common/histogram.h"

namespace pagedserve::net {

// Label values escape backslash, double quote and newline (text format 0.0.4).
[[nodiscard]] std::string escape_label(std::string_view value);

class exposition {
 public:
  explicit exposition(std::string_view model_name);

  void family(std::string_view name, std::string_view type, std::string_view help);
  // One sample: name{model_name="...",extra} value.
  void sample(std::string_view name, std::string_view extra_labels, std::string_view value);
  void gauge(std::string_view name, std::string_view help, double value);
  void counter(std::string_view name, std::string_view help, std::uint64_t value);
  // Cumulative buckets (le="+Inf" equals _count), then _sum and _count.
  void histogram_family(std::string_view name, std::string_view help, const histogram& h);

  [[nodiscard]] std::string take() && { return std::move(out_); }

 private:
  std::string model_label_;
  std::string out_;
};

}  // namespace pagedserve::net
