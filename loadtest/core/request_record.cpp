#include "loadtest/core/request_record.h"

#include <cstdio>
#include <cstdlib>

namespace pagedserve::loadtest {

std::string_view to_string(failure_kind kind) {
  switch (kind) {
    case failure_kind::none:
      return "none";
    case failure_kind::connect:
      return "connect";
    case failure_kind::http_status:
      return "http_status";
    case failure_kind::stream_error:
      return "stream_error";
    case failure_kind::disconnected:
      return "disconnected";
    case failure_kind::timeout:
      return "timeout";
    case failure_kind::bad_response:
      return "bad_response";
  }
  std::fprintf(stderr, "to_string: failure_kind %d out of range\n", static_cast<int>(kind));
  std::abort();
}

}  // namespace pagedserve::loadtest
