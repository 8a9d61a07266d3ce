#include "api/finish_reason.h"

namespace pagedserve {

std::string_view to_string(finish_reason reason) {
  switch (reason) {
    case finish_reason::stop:
      return "stop";
    case finish_reason::length:
      return "length";
    case finish_reason::cancelled:
      return "cancelled";
    case finish_reason::error:
      return "error";
  }
  return "unknown";
}

}  // namespace pagedserve
