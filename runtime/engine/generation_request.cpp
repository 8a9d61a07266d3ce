#include "runtime/engine/generation_request.h"

namespace pagedserve {

std::string_view to_string(finish_kind kind) {
  switch (kind) {
    case finish_kind::length:
      return "length";
    case finish_kind::stop:
      return "stop";
    case finish_kind::cancelled:
      return "cancelled";
    case finish_kind::error:
      return "error";
  }
  return "unknown";
}

}  // namespace pagedserve
