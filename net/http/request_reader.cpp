#include "net/http/request_reader.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <boost/beast/http/error.hpp>

#include "net/http/request_rules.h"

namespace pagedserve::net {
namespace {

namespace beast = boost::beast;

// Beast stores a field's name and value with 16-bit offsets: anything longer throws.
constexpr std::size_t k_max_field_part_bytes = std::numeric_limits<std::uint16_t>::max() - 2;
// A chunk line: its hex size, its extensions and the CRLFs around it.
constexpr std::size_t k_max_chunk_line_bytes = k_max_chunk_extension_bytes + 64;
// What a trailer field costs against max_header_bytes besides its name and value (": ", CRLF).
constexpr std::size_t k_field_overhead_bytes = 4;

std::string_view to_std(beast::string_view s) { return {s.data(), s.size()}; }

api_error head_too_large(std::uint64_t max_header_bytes) {
  return header_too_large("request head and trailers larger than " +
                          std::to_string(max_header_bytes) + " bytes");
}

api_error line_too_long(std::uint64_t max_header_bytes) {
  return header_too_large("a chunk line or the trailers of the request beyond what is left of " +
                          std::to_string(max_header_bytes) + " bytes after its head");
}

}  // namespace

request_reader::request_reader(const request_limits& limits) : limits_(limits) {
  header_limit(static_cast<std::uint32_t>(std::min<std::uint64_t>(
      limits_.max_header_bytes, std::numeric_limits<std::uint32_t>::max())));
  body_limit(limits_.max_body_bytes);
  // Stop once the head is parsed, so it is checked before a body byte is taken.
  eager(false);
}

request_reader::progress request_reader::feed(beast::flat_buffer& buffer) {
  while (!refusal_) {
    if (is_done()) return progress::complete;
    if (buffer.size() == 0) return progress::need_more;
    const bool head_was_done = head_done_;
    beast::error_code ec;
    const std::size_t used = put(buffer.data(), ec);
    buffer.consume(used);
    if (!head_was_done) head_bytes_ += used;
    if (refusal_) break;
    if (ec && ec != http::error::need_more) {
      refuse_parse_error(ec);
      break;
    }
    if (head_done_) eager(true);
    if (ec || (used == 0 && !is_done())) {
      if (!waiting_bytes_over_bound(buffer.size())) return progress::need_more;
      refusal_ = head_done_ ? line_too_long(limits_.max_header_bytes)
                            : head_too_large(limits_.max_header_bytes);
    }
  }
  return progress::refused;
}

// Bytes the parser left in the buffer are an unfinished line: of the head, or while the
// body is chunked, of a chunk line or the trailer section. (Body bytes are always taken.)
bool request_reader::waiting_bytes_over_bound(std::size_t waiting) const {
  const std::uint64_t used = head_bytes_ + trailer_bytes_;
  const std::uint64_t left = limits_.max_header_bytes > used ? limits_.max_header_bytes - used : 0;
  if (!head_done_) return waiting > left;
  return waiting > std::max<std::uint64_t>(left, k_max_chunk_line_bytes);
}

std::string request_reader::request_line() const {
  if (!got_request_line_) return "(unparsed request)";
  return std::string(to_std(request_.method_string())) + " " +
         std::string(to_std(request_.target()));
}

void request_reader::refuse(api_error err, beast::error_code& ec) {
  if (!refusal_) refusal_ = std::move(err);
  ec = http::error::bad_value;  // stops the parser; refusal_ says why
}

void request_reader::refuse_parse_error(const beast::error_code& ec) {
  if (ec == http::error::header_limit) {
    refusal_ = head_too_large(limits_.max_header_bytes);
  } else if (ec == http::error::body_limit) {
    refusal_ = payload_too_large("request body larger than " +
                                 std::to_string(limits_.max_body_bytes) + " bytes");
  } else {
    refusal_ = bad_request("malformed HTTP request: " + ec.message());
  }
}

void request_reader::on_request_impl(http::verb method, beast::string_view method_str,
                                     beast::string_view target, int version,
                                     beast::error_code& /*ec*/) {
  if (method == http::verb::unknown) {
    request_.method_string(method_str);
  } else {
    request_.method(method);
  }
  request_.target(target);
  request_.version(version);
  got_request_line_ = true;
}

void request_reader::on_response_impl(int, beast::string_view, int, beast::error_code& ec) {
  ec = http::error::bad_method;  // a request parser never sees a status line
}

void request_reader::on_field_impl(http::field name, beast::string_view name_str,
                                   beast::string_view value, beast::error_code& ec) {
  if (head_done_) {
    // A trailer field: counted, then dropped.
    trailer_bytes_ += name_str.size() + value.size() + k_field_overhead_bytes;
    if (head_bytes_ + trailer_bytes_ > limits_.max_header_bytes) {
      refuse(head_too_large(limits_.max_header_bytes), ec);
    }
    return;
  }
  if (name_str.size() > k_max_field_part_bytes || value.size() > k_max_field_part_bytes) {
    refuse(header_too_large("a header field longer than " + std::to_string(k_max_field_part_bytes) +
                            " bytes"),
           ec);
    return;
  }
  request_.insert(name, name_str, value);
}

void request_reader::on_header_impl(beast::error_code& ec) {
  head_done_ = true;
  if (std::optional<api_error> broken = check_request_head(request_)) refuse(*broken, ec);
}

void request_reader::on_body_init_impl(const boost::optional<std::uint64_t>& content_length,
                                       beast::error_code& /*ec*/) {
  // basic_parser has refused a Content-Length over body_limit already.
  if (content_length) request_.body().reserve(static_cast<std::size_t>(*content_length));
}

std::size_t request_reader::on_body_impl(beast::string_view body, beast::error_code& /*ec*/) {
  request_.body().append(body.data(), body.size());
  return body.size();
}

void request_reader::on_chunk_header_impl(std::uint64_t /*size*/, beast::string_view extensions,
                                          beast::error_code& ec) {
  if (extensions.size() > k_max_chunk_extension_bytes) {
    refuse(bad_request("chunk extensions longer than " +
                       std::to_string(k_max_chunk_extension_bytes) + " bytes"),
           ec);
  }
}

std::size_t request_reader::on_chunk_body_impl(std::uint64_t /*remain*/, beast::string_view body,
                                               beast::error_code& ec) {
  return on_body_impl(body, ec);
}

void request_reader::on_finish_impl(beast::error_code& /*ec*/) {}

}  // namespace pagedserve::net
