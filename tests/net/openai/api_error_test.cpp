// api_error: the factories' statuses and OpenAI types, the one engine-error mapping, and the
// {"error": {...}} wire shape.

#include <gtest/gtest.h>

#include "net/openai/api_error.h"

namespace pagedserve::net {
namespace {

TEST(api_error, FactoriesCarryTheirStatus) {
  EXPECT_EQ(bad_request("x").status, 400U);
  EXPECT_EQ(unauthorized("x").status, 401U);
  EXPECT_EQ(not_found("x").status, 404U);
  EXPECT_EQ(method_not_allowed("x").status, 405U);
  EXPECT_EQ(request_timeout("x").status, 408U);
  EXPECT_EQ(payload_too_large("x").status, 413U);
  EXPECT_EQ(header_too_large("x").status, 431U);
  EXPECT_EQ(internal_error("x").status, 500U);
  EXPECT_EQ(unauthorized("x").type, "invalid_request_error");
  EXPECT_EQ(unauthorized("x").code, "invalid_api_key");
  EXPECT_EQ(internal_error("x").type, "server_error");
}

TEST(api_error, EngineErrorsMapToOneStatusEach) {
  struct row {
    error_code code;
    unsigned status;
    const char* type;
    std::optional<std::string> api_code;
  };
  const row rows[] = {
      {error_code::invalid_argument, 400, "invalid_request_error", std::nullopt},
      {error_code::unsupported, 400, "invalid_request_error", "unsupported"},
      {error_code::capacity_exceeded, 400, "invalid_request_error", "context_length_exceeded"},
      {error_code::overloaded, 429, "rate_limit_error", "rate_limit_exceeded"},
      {error_code::unavailable, 503, "server_error", "service_unavailable"},
      {error_code::internal, 500, "server_error", std::nullopt},
      {error_code::io_error, 500, "server_error", std::nullopt},
      {error_code::not_found, 500, "server_error", std::nullopt},
      {error_code::corrupt_data, 500, "server_error", std::nullopt},
  };
  for (const row& r : rows) {
    const api_error e = to_api_error(make_error(r.code, "why"));
    EXPECT_EQ(e.status, r.status) << static_cast<int>(r.code);
    EXPECT_EQ(e.type, r.type) << static_cast<int>(r.code);
    EXPECT_EQ(e.code, r.api_code) << static_cast<int>(r.code);
    EXPECT_EQ(e.message, "why");
  }
}

TEST(api_error, WireShapeHasAllFourKeys) {
  const boost::json::value v = boost::json::parse(to_body(bad_request("bad n", "n", "some_code")));
  const boost::json::object& inner = v.at("error").as_object();
  EXPECT_EQ(inner.size(), 4U);
  EXPECT_EQ(inner.at("message").as_string(), "bad n");
  EXPECT_EQ(inner.at("type").as_string(), "invalid_request_error");
  EXPECT_EQ(inner.at("param").as_string(), "n");
  EXPECT_EQ(inner.at("code").as_string(), "some_code");
  const boost::json::object none = to_json(internal_error("boom")).at("error").as_object();
  EXPECT_TRUE(none.at("param").is_null());
  EXPECT_TRUE(none.at("code").is_null());
}

}  // namespace
}  // namespace pagedserve::net
