#include "api/generation_defaults.h"

#include <sstream>

namespace pagedserve {

std::string generation_defaults::describe() const {
  std::ostringstream out;
  const char* separator = "";
  auto add = [&](const char* name, const auto& value) {
    if (!value) return;
    out << separator << name << "=" << *value;
    separator = ", ";
  };
  add("temperature", temperature);
  add("top_p", top_p);
  add("top_k", top_k);
  add("min_p", min_p);
  add("repetition_penalty", repetition_penalty);
  return out.str();
}

}  // namespace pagedserve
