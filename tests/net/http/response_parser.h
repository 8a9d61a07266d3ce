#pragma once
// parse_response: bytes the server would write, read back with Beast's own response parser
// (an independent check of the framing: status line, headers, Content-Length and body).

#include <string>

#include <gtest/gtest.h>
#include <boost/asio/buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

namespace pagedserve::net::testing {

// answer_to_head: the bytes answer a HEAD, so a Content-Length announces no body (RFC 9110
// §9.3.2). Expects the bytes to hold exactly one complete response.
inline boost::beast::http::response<boost::beast::http::string_body> parse_response(
    const std::string& bytes, bool answer_to_head = false) {
  boost::beast::http::response_parser<boost::beast::http::string_body> parser;
  parser.eager(true);
  parser.skip(answer_to_head);
  boost::beast::error_code ec;
  std::size_t used = 0;  // put() takes the head, then the body, in separate calls
  while (!ec && !parser.is_done() && used < bytes.size()) {
    used += parser.put(boost::asio::buffer(bytes.data() + used, bytes.size() - used), ec);
  }
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(used, bytes.size());
  EXPECT_TRUE(parser.is_done());
  return parser.release();
}

}  // namespace pagedserve::net::testing
