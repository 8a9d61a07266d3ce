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
  EXPECT_EQ(expect_route(http::verb::post, "/tokenize"), route::tokenize);
  EXPECT_EQ(expect_route(http::verb::post, "/detokenize"), route::detokenize);
  EXPECT_EQ(expect_route(http::verb::get, "/version"), route::version);
  EXPECT_EQ(expect_route(http::verb::get, "/v1/models/demo"), route::model);
  EXPECT_EQ(expect_route(http::verb::get, "/"), route::playground);
  EXPECT_EQ(expect_route(http::verb::get, "/?q=1"), route::playground);
  EXPECT_EQ(expect_route(http::verb::get, "/ui/main.js"), route::ui_asset);
}

// GET /ui/{path}: the playground's files; /ui/ alone names none, and a POST is a 405.
TEST(Router, UiAssetsTakeTheRestOfThePath) {
  EXPECT_EQ(ui_asset_path_of("/ui/style.css?v=2"), "style.css");
  EXPECT_EQ(ui_asset_path_of("http://host:8000/ui/main.js"), "main.js");
  EXPECT_EQ(ui_asset_path_of("/ui/"), "");
  EXPECT_EQ(ui_asset_path_of("/v1/models/x"), "");
  const route_outcome bare = match_route(http::verb::get, "/ui/");
  ASSERT_TRUE(std::holds_alternative<route_error>(bare));
  EXPECT_EQ(std::get<route_error>(bare).error.status, 404u);
  const route_outcome post = match_route(http::verb::post, "/ui/main.js");
  ASSERT_TRUE(std::holds_alternative<route_error>(post));
  EXPECT_EQ(std::get<route_error>(post).error.status, 405u);
  const route_outcome post_page = match_route(http::verb::post, "/");
  ASSERT_TRUE(std::holds_alternative<route_error>(post_page));
  EXPECT_EQ(std::get<route_error>(post_page).allow, "GET, HEAD");
}

// GET /v1/models/{id}: hub names keep their '/', percent escapes are decoded, and the
// collection itself is still /v1/models.
TEST(Router, ModelRetrieveTakesTheRestOfThePathAsTheId) {
  EXPECT_EQ(expect_route(http::verb::get, "/v1/models/meta-llama/Llama-3.2-1B"), route::model);
  EXPECT_EQ(model_id_of("/v1/models/meta-llama/Llama-3.2-1B"), "meta-llama/Llama-3.2-1B");
  EXPECT_EQ(model_id_of("/v1/models/meta-llama%2FLlama-3.2-1B?x=1"), "meta-llama/Llama-3.2-1B");
  EXPECT_EQ(model_id_of("/v1/models/a%2"), "a%2");  // a malformed escape stays as it is
  EXPECT_EQ(model_id_of("/v1/models"), "");
  EXPECT_EQ(model_id_of("/v1/models/"), "");
  const route_outcome post = match_route(http::verb::post, "/v1/models/demo");
  ASSERT_TRUE(std::holds_alternative<route_error>(post));
  EXPECT_EQ(std::get<route_error>(post).error.status, 405u);
  EXPECT_EQ(std::get<route_error>(post).allow, "GET, HEAD");
}

TEST(Router, TheVersionAndTokenizeTakeTheKey) {
  EXPECT_TRUE(needs_api_key(route::version));
  EXPECT_TRUE(needs_api_key(route::tokenize));
  EXPECT_TRUE(needs_api_key(route::detokenize));
  EXPECT_TRUE(needs_api_key(route::model));
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

TEST(Router, HeadIsAcceptedWhereGetIs) {
  EXPECT_EQ(expect_route(http::verb::head, "/health"), route::health);
  EXPECT_EQ(expect_route(http::verb::head, "/metrics"), route::metrics);
  const route_outcome post_only = match_route(http::verb::head, "/v1/completions");
  ASSERT_TRUE(std::holds_alternative<route_error>(post_only));
  EXPECT_EQ(std::get<route_error>(post_only).error.status, 405u);
  EXPECT_EQ(std::get<route_error>(post_only).allow, "POST");
  const route_outcome get_only = match_route(http::verb::post, "/v1/models");
  ASSERT_TRUE(std::holds_alternative<route_error>(get_only));
  EXPECT_EQ(std::get<route_error>(get_only).allow, "GET, HEAD");
}

// RFC 9112 §3.2: origin-form and absolute-form (03b41d6 answered the latter 404).
TEST(Router, AbsoluteFormTargetsRouteByTheirPath) {
  EXPECT_EQ(expect_route(http::verb::get, "http://localhost:8000/health"), route::health);
  EXPECT_EQ(expect_route(http::verb::get, "HTTPS://h/v1/models?x=1"), route::models);
  EXPECT_EQ(request_path("http://h"), "/");
  EXPECT_EQ(request_path("http://h?q"), "/");
  EXPECT_EQ(request_path("/a?b"), "/a");
  EXPECT_FALSE(request_path("*"));
  EXPECT_FALSE(request_path("example.com:443"));
  EXPECT_FALSE(request_path("ftp://h/health"));
  EXPECT_FALSE(request_path(""));
}

TEST(Router, MessagesQuoteOnlyPrintableBytes) {
  const route_outcome out = match_route(http::verb::get,
                                        "/\xff\x01"
                                        "abc");
  ASSERT_TRUE(std::holds_alternative<route_error>(out));
  EXPECT_EQ(std::get<route_error>(out).error.message, "no route for /??abc");
}

// Everything but the liveness probe and the playground's static files (which hold no data:
// the page asks for the key before it calls anything).
TEST(Router, ApiKeyOnEveryRouteButHealthAndThePlayground) {
  EXPECT_FALSE(needs_api_key(route::health));
  EXPECT_FALSE(needs_api_key(route::playground));
  EXPECT_FALSE(needs_api_key(route::ui_asset));
  EXPECT_TRUE(needs_api_key(route::metrics));
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
