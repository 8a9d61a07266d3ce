#include "net/config/metrics_exposition.h"

#include <cstdio>
#include <cstdlib>

#include "common/config_value.h"

namespace pagedserve::net {
namespace {

constexpr std::string_view prefix = "pagedserve:";

}  // namespace

std::string escape_label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

exposition::exposition(std::string_view model_name)
    : model_label_("model_name=\"" + escape_label(model_name) + "\"") {}

void exposition::family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += "# HELP ";
  out_ += prefix;
  out_ += name;
  out_ += ' ';
  out_ += help;
  out_ += "\n# TYPE ";
  out_ += prefix;
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void exposition::sample(std::string_view name, std::string_view extra_labels,
                        std::string_view value) {
  out_ += prefix;
  out_ += name;
  out_ += '{';
  out_ += model_label_;
  if (!extra_labels.empty()) {
    out_ += ',';
    out_ += extra_labels;
  }
  out_ += "} ";
  out_ += value;
  out_ += '\n';
}

void exposition::gauge(std::string_view name, std::string_view help, double value) {
  family(name, "gauge", help);
  sample(name, "", config_value::format_double(value));
}

void exposition::counter(std::string_view name, std::string_view help, std::uint64_t value) {
  family(name, "counter", help);
  sample(name, "", std::to_string(value));
}

void exposition::histogram_family(std::string_view name, std::string_view help,
                                  const histogram& h) {
  if (h.counts.size() != h.upper_bounds.size() + 1) {
    std::fprintf(stderr, "server_metrics: histogram %.*s has %zu counts for %zu bounds\n",
                 static_cast<int>(name.size()), name.data(), h.counts.size(),
                 h.upper_bounds.size());
    std::abort();
  }
  family(name, "histogram", help);
  const std::string bucket = std::string(name) + "_bucket";
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < h.upper_bounds.size(); ++i) {
    cumulative += h.counts[i];
    sample(bucket, "le=\"" + config_value::format_double(h.upper_bounds[i]) + "\"",
           std::to_string(cumulative));
  }
  cumulative += h.counts.back();
  sample(bucket, "le=\"+Inf\"", std::to_string(cumulative));
  sample(std::string(name) + "_sum", "", config_value::format_double(h.sum));
  sample(std::string(name) + "_count", "", std::to_string(h.count));
}

}  // namespace pagedserve::net
