// request_reader without sockets: bytes in, a request or a refusal out, and never more held
// than the limits allow (RFC 9112 framing, the limits of docs/http-server.md).

#include "net/http/request_reader.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <boost/beast/core/buffers_to_string.hpp>

namespace pagedserve::net {
namespace {

namespace beast = boost::beast;

constexpr std::size_t k_piece = 4096;  // what the session reads at a time

request_limits small_limits() { return {16 * 1024, 64 * 1024}; }

struct outcome {
  request_reader::progress progress = request_reader::progress::need_more;
  unsigned status = 0;  // of the refusal
  std::string message;
  std::size_t most_buffered = 0;  // the largest the buffer got between feeds
  std::string left;               // bytes not consumed
};

// Feeds `bytes` as the session does: one read of up to 4 KiB at a time, parsed at once.
outcome feed_in_pieces(request_reader& reader, const std::string& bytes) {
  beast::flat_buffer buffer;
  outcome out;
  for (std::size_t at = 0; at < bytes.size() || at == 0;) {
    const std::size_t n = std::min(k_piece, bytes.size() - at);
    auto space = buffer.prepare(n);
    std::copy_n(bytes.data() + at, n, static_cast<char*>(space.data()));
    buffer.commit(n);
    at += n;
    out.most_buffered = std::max(out.most_buffered, buffer.size());
    out.progress = reader.feed(buffer);
    if (out.progress != request_reader::progress::need_more || at >= bytes.size()) break;
  }
  if (out.progress == request_reader::progress::refused) {
    out.status = reader.error().status;
    out.message = reader.error().message;
  }
  out.left = beast::buffers_to_string(buffer.data());
  return out;
}

outcome read_all(const std::string& bytes, request_limits limits = small_limits()) {
  request_reader reader(limits);
  return feed_in_pieces(reader, bytes);
}

std::string chunked_get(const std::string& chunks) {
  return "GET /nonexistent HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks;
}

TEST(RequestReader, ReadsAContentLengthRequestAndLeavesThePipelinedNextOne) {
  request_reader reader(small_limits());
  const outcome out = feed_in_pieces(
      reader,
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n");
  ASSERT_EQ(out.progress, request_reader::progress::complete);
  EXPECT_EQ(out.left, "GET / HTTP/1.1\r\n");
  const auto request = reader.release();
  EXPECT_EQ(request.method(), http::verb::post);
  EXPECT_EQ(request.target(), "/v1/completions");
  EXPECT_EQ(request.body(), "{}");
}

TEST(RequestReader, ReadsAChunkedBodyAndDropsTrailersInsteadOfMergingThem) {
  request_reader reader(small_limits());
  const outcome out =
      feed_in_pieces(reader, chunked_get("2\r\n{}\r\n0\r\nAuthorization: Bearer x\r\n\r\n"));
  ASSERT_EQ(out.progress, request_reader::progress::complete);
  const auto request = reader.release();
  EXPECT_EQ(request.body(), "{}");
  EXPECT_EQ(request.count(http::field::authorization), 0u);  // RFC 9110 §6.5.1
}

// 03b41d6: Beast threw std::length_error ("field value too large") out of the io thread.
TEST(RequestReader, TrailerFieldOf70000BytesIs431NotAnException) {
  const outcome value = read_all(chunked_get("0\r\nX-T: " + std::string(70000, 'a') + "\r\n\r\n"));
  EXPECT_EQ(value.progress, request_reader::progress::refused);
  EXPECT_EQ(value.status, 431u);
  const outcome name = read_all(chunked_get("0\r\n" + std::string(70000, 'a') + ": v\r\n\r\n"));
  EXPECT_EQ(name.status, 431u);
}

TEST(RequestReader, HeadAndTrailersTogetherStayUnderMaxHeaderBytes) {
  std::string trailers;
  for (int i = 0; i < 100; ++i)
    trailers += "X-" + std::to_string(i) + ": " + std::string(100, 'v') + "\r\n";
  const outcome under = read_all(chunked_get("0\r\n" + trailers + "\r\n"));
  EXPECT_EQ(under.progress, request_reader::progress::complete) << under.message;
  // Megabytes of small trailer fields (03b41d6 accepted 64 MB and held them): refused once
  // past the bound, never buffered beyond it.
  std::string flood;
  while (flood.size() < 8u * 1024 * 1024) flood += "X-F: " + std::string(90, 'f') + "\r\n";
  const outcome over = read_all(chunked_get("0\r\n" + flood + "\r\n"));
  EXPECT_EQ(over.status, 431u);
  EXPECT_LE(over.most_buffered, small_limits().max_header_bytes + k_piece);
}

TEST(RequestReader, ChunkExtensionsAreBounded) {
  const outcome ok = read_all(chunked_get("2;name=value\r\n{}\r\n0\r\n\r\n"));
  EXPECT_EQ(ok.progress, request_reader::progress::complete);
  const outcome longer = read_all(chunked_get(
      "2;" + std::string(k_max_chunk_extension_bytes + 1, 'e') + "\r\n{}\r\n0\r\n\r\n"));
  EXPECT_EQ(longer.status, 400u);
  EXPECT_NE(longer.message.find("chunk extension"), std::string::npos) << longer.message;
  // A 64 MB extension (03b41d6 held all of it): refused within the bound.
  const outcome huge =
      read_all(chunked_get("2;" + std::string(64u * 1024 * 1024, 'e') + "\r\n{}\r\n0\r\n\r\n"));
  EXPECT_EQ(huge.progress, request_reader::progress::refused);
  EXPECT_LE(huge.most_buffered, small_limits().max_header_bytes + k_piece);
}

TEST(RequestReader, BodyLimitHoldsWhateverTheFraming) {
  const std::string chunk = "8000\r\n" + std::string(0x8000, 'b') + "\r\n";
  const outcome chunked = read_all(chunked_get(chunk + chunk + chunk + "0\r\n\r\n"));
  EXPECT_EQ(chunked.status, 413u);
  const outcome by_length =
      read_all("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  EXPECT_EQ(by_length.status, 413u);
}

TEST(RequestReader, HeadOverTheLimitIs431WithoutBufferingIt) {
  const outcome out =
      read_all("GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(1024 * 1024, 'p'));
  EXPECT_EQ(out.status, 431u);
  EXPECT_LE(out.most_buffered, small_limits().max_header_bytes + k_piece);
}

TEST(RequestReader, AFieldBeastCannotStoreIs431EvenUnderAHugeHeaderLimit) {
  const outcome out =
      read_all("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(70000, 'p') + "\r\n\r\n",
               {1024 * 1024, 1024});
  EXPECT_EQ(out.status, 431u);
}

TEST(RequestReader, HostRules) {
  EXPECT_EQ(read_all("GET /health HTTP/1.1\r\n\r\n").status, 400u);
  EXPECT_EQ(read_all("GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n").status, 400u);
  EXPECT_EQ(read_all("GET /health HTTP/1.1\r\nHost: a b\r\n\r\n").status, 400u);
  EXPECT_EQ(read_all("GET /health HTTP/1.1\r\nHost: a/b\r\n\r\n").status, 400u);
  EXPECT_EQ(read_all("GET /health HTTP/1.1\r\nHost: [::1]:8000\r\n\r\n").progress,
            request_reader::progress::complete);
  EXPECT_EQ(read_all("GET /health HTTP/1.1\r\nHost:\r\n\r\n").progress,
            request_reader::progress::complete);
  EXPECT_EQ(read_all("GET /health HTTP/1.0\r\n\r\n").progress, request_reader::progress::complete);
}

TEST(RequestReader, TransferCodingRules) {
  const auto with = [](const std::string& codings, const std::string& version = "1.1") {
    return read_all("POST /v1/completions HTTP/" + version + "\r\nHost: x\r\nTransfer-Encoding: " +
                    codings + "\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  };
  EXPECT_EQ(with("chunked").progress, request_reader::progress::complete);
  EXPECT_EQ(with("Chunked").progress, request_reader::progress::complete);
  EXPECT_EQ(with("gzip, chunked").status, 501u);  // 03b41d6 treated it as plain chunked
  EXPECT_EQ(with("chunked, gzip").status, 400u);  // 03b41d6 read no body, then the chunks
  EXPECT_EQ(with("chunked, chunked").status, 400u);
  EXPECT_EQ(with("identity").status, 400u);
  EXPECT_EQ(with("chunked", "1.0").status, 400u);
  const outcome both = read_all(
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
      "Content-Length: 5\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
  EXPECT_EQ(both.status, 400u);
}

TEST(RequestReader, TargetForms) {
  EXPECT_EQ(read_all("GET http://example.com:8000/health HTTP/1.1\r\nHost: x\r\n\r\n").progress,
            request_reader::progress::complete);
  EXPECT_EQ(read_all("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n").status, 400u);
  EXPECT_EQ(read_all("CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n").status, 400u);
}

TEST(RequestReader, RequestLineIsKnownOnceParsed) {
  request_reader reader(small_limits());
  EXPECT_EQ(reader.request_line(), "(unparsed request)");
  const outcome out = feed_in_pieces(reader, "HEAD /health HTTP/1.1\r\n\r\n");
  EXPECT_EQ(out.status, 400u);  // no Host
  EXPECT_EQ(reader.request_line(), "HEAD /health");
  EXPECT_EQ(reader.method(), http::verb::head);
}

}  // namespace
}  // namespace pagedserve::net
