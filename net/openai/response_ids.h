#pragma once
// Random ids: `prefix` and 32 hex digits ("resp_…", "msg_…", "fc_…"; response_names.cpp).

#include <string>

namespace pagedserve::net {

[[nodiscard]] std::string make_prefixed_id(std::string prefix);

}  // namespace pagedserve::net
