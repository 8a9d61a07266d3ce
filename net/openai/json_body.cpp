#include "net/openai/json_body.h"

namespace pagedserve::net {

std::variant<boost::json::value, api_error> parse_json_body(std::string_view text) {
  boost::json::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) return bad_request("the body is not valid JSON: " + ec.message());
  return value;
}

}  // namespace pagedserve::net
