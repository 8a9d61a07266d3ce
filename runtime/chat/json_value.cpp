#include "runtime/chat/json_value.h"

#include <limits>

namespace pagedserve {
namespace {

struct too_deep {};

jinja::value convert(const boost::json::value& json, int depth) {
  if (depth > max_json_depth) throw too_deep{};
  switch (json.kind()) {
    case boost::json::kind::null:
      return jinja::value(jinja::none_value{});
    case boost::json::kind::bool_:
      return jinja::value(json.get_bool());
    case boost::json::kind::int64:
      return jinja::value(json.get_int64());
    case boost::json::kind::uint64: {
      const auto u = json.get_uint64();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return jinja::value(static_cast<std::int64_t>(u));
      }
      return jinja::value(static_cast<double>(u));
    }
    case boost::json::kind::double_:
      return jinja::value(json.get_double());
    case boost::json::kind::string:
      return jinja::value(std::string(json.get_string()));
    case boost::json::kind::array: {
      std::vector<jinja::value> items;
      items.reserve(json.get_array().size());
      for (const auto& item : json.get_array()) items.push_back(convert(item, depth + 1));
      return jinja::value::list(std::move(items));
    }
    case boost::json::kind::object: {
      auto d = std::make_shared<jinja::dict_object>();
      for (const auto& [k, v] : json.get_object()) d->set(std::string(k), convert(v, depth + 1));
      return jinja::value(std::move(d));
    }
  }
  return jinja::value();
}

}  // namespace

result<jinja::value> to_jinja_value(const boost::json::value& json) {
  try {
    return convert(json, 0);
  } catch (const too_deep&) {
    return make_error(error_code::invalid_argument,
                      "chat request data nested deeper than " + std::to_string(max_json_depth));
  }
}

}  // namespace pagedserve
