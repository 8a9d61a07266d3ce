#include "loadtest/core/server_url.h"

#include <gtest/gtest.h>

namespace pagedserve::loadtest {
namespace {

void expect_url(std::string_view text, std::string_view host, std::string_view port) {
  result<server_url> url = parse_server_url(text);
  ASSERT_TRUE(url.ok()) << text << ": " << url.err().message;
  EXPECT_EQ(url->host, host) << text;
  EXPECT_EQ(url->port, port) << text;
}

TEST(ServerUrl, AcceptedForms) {
  expect_url("http://localhost:8000", "localhost", "8000");
  expect_url("http://127.0.0.1:8000/", "127.0.0.1", "8000");
  expect_url("http://example.com/v1", "example.com", "80");
  expect_url("example.com:9", "example.com", "9");
  expect_url("[::1]:8080", "::1", "8080");
  expect_url("http://[::1]", "::1", "80");
}

TEST(ServerUrl, WritesBackWithBracketsForIpv6) {
  EXPECT_EQ(parse_server_url("h:1")->to_string(), "http://h:1");
  EXPECT_EQ(parse_server_url("[::1]:2")->to_string(), "http://[::1]:2");
}

TEST(ServerUrl, Rejections) {
  result<server_url> tls = parse_server_url("https://h:443");
  ASSERT_FALSE(tls.ok());
  EXPECT_NE(tls.err().message.find("TLS"), std::string::npos);
  for (std::string_view bad :
       {"", "http://", "http://:80", "h:port", "h:99999", "ftp://h", "[::1"}) {
    EXPECT_FALSE(parse_server_url(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace pagedserve::loadtest
