// What many hostile connections at once can make the server hold (docs/http-server.md,
// "Memory per connection"): each connection streams megabytes that no limit of 03b41d6
// stopped (a chunk extension, trailer fields) or that the limits must stop (a head without
// end, a body over max_body_bytes, pipelined requests whose answers are never read). The
// process's resident memory is measured before and while they are all open; its growth must
// stay within the documented per-connection worst case times the connections, plus a fixed
// allowance for threads and allocator slack. (On 03b41d6 it grew by hundreds of MB.)
// Label no_asan: ASan's quarantine keeps freed memory resident, which is not what is measured.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

constexpr std::size_t k_connections = 32;
constexpr std::size_t k_bytes_per_connection = 16u * 1024 * 1024;
constexpr std::size_t k_allowance_bytes = 48u * 1024 * 1024;

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t total_pages = 0;
  std::size_t resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

enum class attack { endless_head, chunk_extension, trailers, body_over_limit, unread_pipeline };

// The request's start and the bytes repeated after it, for as long as the server reads.
std::pair<std::string, std::string> attack_bytes(attack kind) {
  const std::string chunked =
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  switch (kind) {
    case attack::endless_head:
      return {"GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: ", std::string(4096, 'p')};
    case attack::chunk_extension:
      return {chunked + "2;", std::string(4096, 'e')};
    case attack::trailers:
      return {chunked + "0\r\n", "X-F: " + std::string(90, 'f') + "\r\n"};
    case attack::body_over_limit:
      return {chunked, "1000\r\n" + std::string(0x1000, 'b') + "\r\n"};
    case attack::unread_pipeline:
      return {"", "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"};
  }
  return {};
}

// A plain socket that sends until the server stops taking bytes (a send blocked for 1 s, or
// refused). It is kept open, so what the server holds for it is still held when measured.
class hostile_connection {
 public:
  explicit hostile_connection(std::uint16_t port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    timeval timeout{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  }
  ~hostile_connection() { close(fd_); }
  hostile_connection(const hostile_connection&) = delete;
  hostile_connection& operator=(const hostile_connection&) = delete;

  void flood(attack kind) {
    const auto [start, repeated] = attack_bytes(kind);
    std::string block;
    while (block.size() < 64 * 1024) block += repeated;
    if (!send_all(start)) return;
    for (std::size_t sent = 0; sent < k_bytes_per_connection; sent += block.size()) {
      if (!send_all(block)) return;
    }
  }

 private:
  bool send_all(const std::string& bytes) {
    for (std::size_t at = 0; at < bytes.size();) {
      const ssize_t n = send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (n <= 0) return false;
      at += static_cast<std::size_t>(n);
    }
    return true;
  }

  int fd_;
};

TEST(HttpMemory, HostileConnectionsHoldNoMoreThanTheDocumentedBound) {
  server_config config = test_config();
  config.max_header_bytes = 16 * 1024;
  config.max_body_bytes = 64 * 1024;
  config.max_connections = 2 * k_connections;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  {
    http_client warm(s->port());  // the first request's one-off allocations
    EXPECT_EQ(
        warm.request(http::verb::post, "/v1/completions", completion_body(2, false)).result_int(),
        200u);
  }
  const std::size_t before = resident_bytes();

  std::vector<std::unique_ptr<hostile_connection>> connections;
  std::vector<std::thread> senders;
  for (std::size_t i = 0; i < k_connections; ++i) {
    connections.push_back(std::make_unique<hostile_connection>(s->port()));
    const auto kind = static_cast<attack>(i % 5);
    senders.emplace_back([c = connections.back().get(), kind] { c->flood(kind); });
  }
  for (std::thread& t : senders) t.join();
  const std::size_t during = resident_bytes();

  // docs/http-server.md: read buffer (max_header_bytes + 4 KiB), head fields
  // (max_header_bytes), body (max_body_bytes), one queued answer (small here).
  const std::size_t per_connection = 2 * config.max_header_bytes + 4096 + config.max_body_bytes;
  const std::size_t bound = k_connections * per_connection + k_allowance_bytes;
  const std::size_t growth = during > before ? during - before : 0;
  std::printf(
      "resident before %.1f MB, with %zu hostile connections %.1f MB (growth %.1f MB, "
      "bound %.1f MB)\n",
      before / 1e6, k_connections, during / 1e6, growth / 1e6, bound / 1e6);
  EXPECT_LE(growth, bound);
  connections.clear();
  http_client after(s->port());
  EXPECT_EQ(after.request(http::verb::get, "/health").result_int(), 200u);
}

}  // namespace
}  // namespace pagedserve::net::testing
