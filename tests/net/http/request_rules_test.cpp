// request_rules on request heads built in code: RFC 6455's key rule (the RFC 9112 rules are
// exercised through request_reader_test.cpp, as a parsed head reaches them).

#include "net/http/request_rules.h"

#include <string>

#include <gtest/gtest.h>

namespace pagedserve::net {
namespace {

namespace http = boost::beast::http;

http::request_header<> upgrade_with_keys(std::initializer_list<std::string> keys) {
  http::request_header<> head;
  head.method(http::verb::get);
  head.target("/v1/stream");
  head.version(11);
  head.set(http::field::host, "x");
  for (const std::string& key : keys) head.insert(http::field::sec_websocket_key, key);
  return head;
}

TEST(RequestRules, WebSocketKeyMustBeBase64Of16Bytes) {
  // RFC 6455 §1.3's example key.
  EXPECT_FALSE(check_websocket_key(upgrade_with_keys({"dGhlIHNhbXBsZSBub25jZQ=="})));
  for (const std::string bad :
       {"", "abc", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZQ=", "dGhlIHNhbXBsZSBub25jZ===",
        "dGhlIHNhbXBsZSBub25j*Q==", "dGhlIHNhbXBsZSBub25jZSE=", "dGhlIHNhbXBsZSBub25jZQ==AAAA"}) {
    const auto err = check_websocket_key(upgrade_with_keys({bad}));
    ASSERT_TRUE(err) << bad;
    EXPECT_EQ(err->status, 400u);
  }
  EXPECT_TRUE(check_websocket_key(upgrade_with_keys({})));
  EXPECT_TRUE(check_websocket_key(
      upgrade_with_keys({"dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZQ=="})));
}

TEST(RequestRules, AWellFormedHeadPasses) {
  EXPECT_FALSE(check_request_head(upgrade_with_keys({})));
}

}  // namespace
}  // namespace pagedserve::net
