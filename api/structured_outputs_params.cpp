#include "api/structured_outputs_params.h"

namespace pagedserve {

// The kind, then each part with its length, so no two different constraints share a key.
std::string structured_outputs_params::cache_key() const {
  std::string key = to_string(type);
  auto add = [&key](const std::string& part) {
    key += ':';
    key += std::to_string(part.size());
    key += ':';
    key += part;
  };
  add(spec);
  for (const std::string& c : choice) add(c);
  return key;
}

const char* to_string(structured_outputs_params::kind kind) {
  using k = structured_outputs_params::kind;
  switch (kind) {
    case k::json:
      return "json";
    case k::json_object:
      return "json_object";
    case k::regex:
      return "regex";
    case k::choice:
      return "choice";
    case k::grammar:
      return "grammar";
  }
  return "unknown";
}

}  // namespace pagedserve
