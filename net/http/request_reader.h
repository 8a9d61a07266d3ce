#pragma once
// request_reader: one HTTP/1.1 request read from a connection's buffer under the server's
// limits. Every byte a client can make it hold is bounded:
//   - head (request line and fields) and trailers together: max_header_bytes. Trailer
//     fields are counted and then dropped, never merged into the head (RFC 9110 §6.5.1);
//   - one chunk's extensions: k_max_chunk_extension_bytes (400 above);
//   - the body, whatever its framing (Content-Length or chunked): max_body_bytes (413);
//   - bytes waiting in the buffer for a line to end (a chunk line, a trailer section):
//     what is left of max_header_bytes after the head.
// A field Beast cannot store (65,534 bytes or more) is a 431, never an exception. Once the
// head is parsed, and before any body byte is read, it must pass check_request_head
// (request_rules.h). No socket here: the session feeds it whatever bytes arrived.

#include <cstdint>
#include <optional>
#include <string>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/basic_parser.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

namespace http = boost::beast::http;

inline constexpr std::size_t k_max_chunk_extension_bytes = 1024;

struct request_limits {
  std::uint64_t max_header_bytes = 16 * 1024;
  std::uint64_t max_body_bytes = 4 * 1024 * 1024;
};

class request_reader final : private http::basic_parser<true> {
 public:
  enum class progress { need_more, complete, refused };

  explicit request_reader(const request_limits& limits);

  // Parses as much of `buffer` as it can and consumes what it used (bytes of a following
  // pipelined request stay). After `refused`, error() says what to answer; the connection
  // must close, as the rest of its bytes cannot be framed.
  progress feed(boost::beast::flat_buffer& buffer);

  // "METHOD target" once the request line is parsed, for logs.
  [[nodiscard]] std::string request_line() const;
  // The method, once the request line is parsed (HEAD answers carry no body).
  [[nodiscard]] http::verb method() const { return request_.method(); }
  [[nodiscard]] const api_error& error() const { return *refusal_; }
  // The whole request, once complete.
  [[nodiscard]] http::request<http::string_body> release() { return std::move(request_); }

 private:
  void refuse(api_error err, boost::beast::error_code& ec);
  void refuse_parse_error(const boost::beast::error_code& ec);
  [[nodiscard]] bool waiting_bytes_over_bound(std::size_t waiting) const;

  // basic_parser's callbacks.
  void on_request_impl(http::verb method, boost::beast::string_view method_str,
                       boost::beast::string_view target, int version,
                       boost::beast::error_code& ec) override;
  void on_response_impl(int, boost::beast::string_view, int, boost::beast::error_code& ec) override;
  void on_field_impl(http::field name, boost::beast::string_view name_str,
                     boost::beast::string_view value, boost::beast::error_code& ec) override;
  void on_header_impl(boost::beast::error_code& ec) override;
  void on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                         boost::beast::error_code& ec) override;
  std::size_t on_body_impl(boost::beast::string_view body, boost::beast::error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t size, boost::beast::string_view extensions,
                            boost::beast::error_code& ec) override;
  std::size_t on_chunk_body_impl(std::uint64_t remain, boost::beast::string_view body,
                                 boost::beast::error_code& ec) override;
  void on_finish_impl(boost::beast::error_code& ec) override;

  const request_limits limits_;
  http::request<http::string_body> request_;
  bool got_request_line_ = false;
  bool head_done_ = false;
  std::uint64_t head_bytes_ = 0;     // consumed up to the end of the head
  std::uint64_t trailer_bytes_ = 0;  // names and values of the trailer fields
  std::optional<api_error> refusal_;
};

}  // namespace pagedserve::net
