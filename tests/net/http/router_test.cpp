#include "net/http/router.h"

#include <gtest/gtest.h>

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

route expect_route(http::verb method, std::string_view target) {
  const route_outcome out = match_route(method, target);
  EXPECT_TRUE(std::holds_alternative<route>(out)) << target;
  return std::holds_alternative<route>(out) ? std::get<route>(out) : route::health;
}

TEST(Router, EveryRouteByMethodAndPath) {
  EXPECT_EQ(expect_route(http::verb::get, "/health"), route::health);
  EXPECT_EQ(expect_route(http::verb::get, "/v1/models"), route::models);
  EXPECT_EQ(expect_route(http::verb::get, "/metrics"), route::metrics);
  EXPECT_EQ(expect_route(http::verb::post, "/v1/completions"), route::completions);
  EXPECT_EQ(expect_route(http::verb::post, "/v1/chat/completions"), route::chat_completions);
  EXPECT_EQ(expect_route(http::verb::get, "/v1/stream"), route::stream);
  EXPECT_EQ(expect_route(http::verb::get, "/metrics?x=1"), route::metrics);
}

TEST(Router, UnknownPathIs404) {
  const route_outcome out = match_route(http::verb::get, "/v1/completion");
  ASSERT_TRUE(std::holds_alternative<route_error>(out));
  EXPECT_EQ(std::get<route_error>(out).error.status, 404u);
  EXPECT_TRUE(std::get<route_error>(out).allow.empty());
}

TEST(Router, WrongMethodIs405NamingTheAllowedOne) {
  const route_outcome out = match_route(http::verb::delete_, "/v1/chat/completions");
  ASSERT_TRUE(std::holds_alternative<route_error>(out));
  EXPECT_EQ(std::get<route_error>(out).error.status, 405u);
  EXPECT_EQ(std::get<route_error>(out).allow, "POST");
}

TEST(Router, ApiKeyOnlyOnV1Routes) {
  EXPECT_FALSE(needs_api_key(route::health));
  EXPECT_FALSE(needs_api_key(route::metrics));
  EXPECT_TRUE(needs_api_key(route::models));
  EXPECT_TRUE(needs_api_key(route::stream));
  EXPECT_FALSE(check_api_key("", ""));
  EXPECT_FALSE(check_api_key("abc", "Bearer abc"));
  EXPECT_EQ(check_api_key("abc", "")->status, 401u);
  EXPECT_TRUE(check_api_key("abc", "Bearer abd"));
  EXPECT_TRUE(check_api_key("abc", "Bearer abcd"));
  EXPECT_TRUE(check_api_key("abc", "abc"));
  EXPECT_TRUE(check_api_key("abc", "Basic abc"));
}

}  // namespace
}  // namespace pagedserve::net
