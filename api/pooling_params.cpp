#include "api/pooling_params.h"

namespace pagedserve {

std::string_view to_string(pooling_type type) {
  switch (type) {
    case pooling_type::mean:
      return "mean";
    case pooling_type::cls:
      return "cls";
    case pooling_type::last:
      break;
  }
  return "last";
}

std::optional<pooling_type> pooling_type_from_string(std::string_view name) {
  for (const pooling_type t : {pooling_type::last, pooling_type::mean, pooling_type::cls}) {
    if (name == to_string(t)) return t;
  }
  return std::nullopt;
}

}  // namespace pagedserve
