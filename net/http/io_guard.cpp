#include "net/http/io_guard.h"

#include <spdlog/spdlog.h>

namespace pagedserve::net {

std::string_view to_string(io_stage stage) {
  switch (stage) {
    case io_stage::accept:
      return "accept";
    case io_stage::read:
      return "read";
    case io_stage::parse:
      return "parse";
    case io_stage::route:
      return "route";
    case io_stage::body:
      return "body";
    case io_stage::engine_event:
      return "engine event";
    case io_stage::write:
      return "write";
    case io_stage::websocket:
      return "websocket";
  }
  return "unknown";
}

void log_stage_exception(io_stage stage, const std::exception_ptr& thrown) noexcept {
  try {
    std::rethrow_exception(thrown);
  } catch (const std::exception& e) {
    spdlog::error("exception in the {} stage of a connection: {}", to_string(stage), e.what());
  } catch (...) {
    spdlog::error("exception in the {} stage of a connection (not a std::exception)",
                  to_string(stage));
  }
}

}  // namespace pagedserve::net
