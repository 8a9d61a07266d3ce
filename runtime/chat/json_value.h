#pragma once
// Boost.JSON -> Jinja values, as Python's json.loads would hand them to jinja2.

#include <boost/json.hpp>

#include "common/result.h"
#include "runtime/chat/jinja/value.h"

namespace pagedserve {

inline constexpr int max_json_depth = 128;  // deeper request data is refused, not recursed

[[nodiscard]] result<jinja::value> to_jinja_value(const boost::json::value& json);

}  // namespace pagedserve
