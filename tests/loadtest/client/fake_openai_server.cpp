#include "tests/loadtest/client/fake_openai_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace pagedserve::loadtest::testing {
namespace {

namespace json = boost::json;
using fake_clock = std::chrono::steady_clock;

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::abort();
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) {
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// One HTTP chunk holding one SSE event.
bool send_event(int fd, std::string_view data) {
  const std::string event = "data: " + std::string(data) + "\n\n";
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", event.size());
  return send_all(fd, std::string(size) + event + "\r\n");
}

struct parsed_request {
  std::string path;
  json::object body;
  fake_clock::time_point arrival;  // when the kernel received the request's first bytes
};

// The kernel's receive time of a segment (SO_TIMESTAMPNS, on the realtime clock) on the
// steady clock. Anchoring the schedule there, not at the moment this thread got to run,
// keeps a busy machine's late wake-ups out of the delays the server injects.
fake_clock::time_point steady_time_of(const timespec& kernel_time) {
  const auto realtime = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::seconds(kernel_time.tv_sec) +
          std::chrono::nanoseconds(kernel_time.tv_nsec)));
  const auto age = std::chrono::system_clock::now() - realtime;
  const fake_clock::time_point now = fake_clock::now();
  if (age < std::chrono::seconds(0) || age > std::chrono::seconds(1)) {
    return now;  // no usable timestamp
  }
  return now - std::chrono::duration_cast<fake_clock::duration>(age);
}

// recv() that also returns the segment's kernel timestamp (nullopt when none came).
ssize_t recv_stamped(int fd, char* buffer, std::size_t size, std::optional<timespec>& stamp) {
  iovec io{buffer, size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(fd, &message, 0);
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); n > 0 && c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      timespec kernel_time{};
      std::memcpy(&kernel_time, CMSG_DATA(c), sizeof kernel_time);
      stamp = kernel_time;
    }
  }
  return n;
}

// Reads one request (header, then a Content-Length body); nullopt on a closed socket.
std::optional<parsed_request> read_request(int fd) {
  std::string bytes;
  char buffer[4096];
  std::size_t header_end = std::string::npos;
  std::size_t body_size = 0;
  std::optional<fake_clock::time_point> arrival;
  while (header_end == std::string::npos || bytes.size() < header_end + 4 + body_size) {
    std::optional<timespec> stamp;
    const ssize_t n = recv_stamped(fd, buffer, sizeof buffer, stamp);
    if (n <= 0) {
      return std::nullopt;
    }
    if (!arrival) {
      arrival = stamp ? steady_time_of(*stamp) : fake_clock::now();
    }
    bytes.append(buffer, static_cast<std::size_t>(n));
    if (header_end == std::string::npos && (header_end = bytes.find("\r\n\r\n")) != bytes.npos) {
      std::string lower = bytes.substr(0, header_end);
      for (char& c : lower) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      const std::size_t length = lower.find("content-length:");
      body_size = length == lower.npos ? 0 : std::stoul(lower.substr(length + 15));
    }
  }
  parsed_request request;
  request.arrival = *arrival;
  const std::size_t path_start = bytes.find(' ') + 1;
  request.path = bytes.substr(path_start, bytes.find(' ', path_start) - path_start);
  boost::system::error_code ec;
  json::value body = json::parse(bytes.substr(header_end + 4, body_size), ec);
  if (!ec && body.is_object()) {
    request.body = std::move(body.get_object());
  }
  return request;
}

struct request_shape {
  bool chat = false;
  std::string prompt;  // text or chat content
  std::uint64_t prompt_tokens = 0;
  std::uint64_t max_tokens = 16;
  bool include_usage = false;
};

request_shape shape_of(const parsed_request& request) {
  request_shape shape;
  shape.chat = request.path == "/v1/chat/completions";
  const json::object& body = request.body;
  if (const json::value* prompt = body.if_contains("prompt")) {
    if (prompt->is_array()) {
      shape.prompt_tokens = prompt->get_array().size();
    } else if (prompt->is_string()) {
      shape.prompt = std::string(prompt->get_string());
    }
  }
  if (const json::value* messages = body.if_contains("messages");
      messages != nullptr && messages->is_array() && !messages->get_array().empty()) {
    shape.prompt = json::value_to<std::string>(messages->get_array()[0].at("content"));
  }
  if (shape.prompt_tokens == 0) {
    shape.prompt_tokens = shape.prompt.size();
  }
  if (const json::value* max_tokens = body.if_contains("max_tokens")) {
    shape.max_tokens = json::value_to<std::uint64_t>(*max_tokens);
  }
  if (const json::value* stream_options = body.if_contains("stream_options")) {
    const json::value* include = stream_options->as_object().if_contains("include_usage");
    shape.include_usage = include != nullptr && include->is_bool() && include->get_bool();
  }
  return shape;
}

std::string token_chunk(const request_shape& shape, bool last) {
  json::object choice{{"index", 0}, {"finish_reason", last ? json::value("length") : nullptr}};
  if (shape.chat) {
    choice["delta"] = json::object{{"content", "tok "}};
  } else {
    choice["text"] = "tok ";
    choice["logprobs"] = nullptr;
  }
  return json::serialize(
      json::object{{"id", "fake-1"},
                   {"object", shape.chat ? "chat.completion.chunk" : "text_completion"},
                   {"created", 0},
                   {"model", "fake"},
                   {"choices", json::array{std::move(choice)}}});
}

// The chat route's first chunk: the role, no content (not a token).
std::string role_chunk() {
  return json::serialize(json::object{
      {"id", "fake-1"},
      {"object", "chat.completion.chunk"},
      {"choices",
       json::array{json::object{{"index", 0},
                                {"delta", json::object{{"role", "assistant"}, {"content", ""}}},
                                {"finish_reason", nullptr}}}}});
}

std::string usage_chunk(const request_shape& shape) {
  return json::serialize(json::object{
      {"id", "fake-1"},
      {"choices", json::array{}},
      {"usage", json::object{{"prompt_tokens", shape.prompt_tokens},
                             {"completion_tokens", shape.max_tokens},
                             {"total_tokens", shape.prompt_tokens + shape.max_tokens}}}});
}

constexpr std::string_view stream_header =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
    "Connection: close\r\n\r\n";

constexpr std::string_view models_response =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 57\r\n"
    "Connection: close\r\n\r\n"
    R"({"object":"list","data":[{"id":"fake-model"},{"id":"x"}]})";

bool wants(const request_shape& shape, std::string_view failure) {
  return shape.prompt.find(failure) != std::string::npos;
}

void send_status_failure(int fd) {
  const std::string body =
      R"({"object":"error","error":{"message":"injected failure","type":"InternalServerError","code":500}})";
  send_all(fd,
           "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
           "Content-Length: " +
               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
}

// What follows the token chunks: the injected failure, or usage (when asked) and [DONE].
void send_ending(int fd, const request_shape& shape, bool omit_usage) {
  if (wants(shape, "fail:disconnect")) {
    return;  // the caller closes the connection mid-stream
  }
  if (wants(shape, "fail:hang")) {
    char byte = 0;
    while (::recv(fd, &byte, 1, 0) > 0) {
      continue;  // until the client (or stop()) closes the connection
    }
    return;
  }
  if (wants(shape, "fail:stream_error")) {
    send_event(fd, R"({"error":{"message":"injected stream error","code":500}})");
    return;
  }
  if (wants(shape, "fail:garbage")) {
    send_event(fd, "this is not json");
    return;
  }
  if (shape.include_usage && !omit_usage) {
    send_event(fd, usage_chunk(shape));
  }
  if (send_event(fd, "[DONE]")) {
    send_all(fd, "0\r\n\r\n");
  }
}

}  // namespace

fake_openai_server::fake_openai_server(fake_server_options options) : options_(options) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) {
    die("fake_openai_server: socket");
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  auto* generic = reinterpret_cast<sockaddr*>(&address);
  if (::bind(listen_fd_, generic, length) != 0 || ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, generic, &length) != 0) {
    die("fake_openai_server: bind/listen");
  }
  port_ = ntohs(address.sin_port);
  const int one = 1;  // accepted sockets inherit it
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
  // Workers already blocked in accept(): no thread is started between a client's connect
  // and its request's receipt, which would add to the TTFT the client measures.
  for (std::size_t i = 0; i < options_.num_workers; ++i) {
    workers_.emplace_back([this] { accept_loop(); });
  }
}

fake_openai_server::~fake_openai_server() { stop(); }

server_url fake_openai_server::url() const { return {"127.0.0.1", std::to_string(port_)}; }

std::vector<served_request> fake_openai_server::served() const {
  std::lock_guard lock(mutex_);
  return served_;
}

void fake_openai_server::stop() {
  if (stopping_.exchange(true)) {
    return;
  }
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes every accept()
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_) {
      ::shutdown(fd, SHUT_RDWR);  // wakes a worker blocked on its connection
    }
  }
  for (std::thread& worker : workers_) {
    worker.join();
  }
  ::close(listen_fd_);
}

void fake_openai_server::accept_loop() {
  // Wake at each deadline, not up to 50 us later (the default timer slack).
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  while (!stopping_) {
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) {
      continue;  // stop() shut the listener down, or a transient error
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    {
      std::lock_guard lock(mutex_);
      if (stopping_) {
        ::close(fd);
        break;
      }
      open_fds_.push_back(fd);
    }
    serve(fd);
  }
}

void fake_openai_server::note_started() {
  const std::size_t now = ++in_flight_;
  std::size_t peak = peak_in_flight_.load();
  while (now > peak && !peak_in_flight_.compare_exchange_weak(peak, now)) {
  }
}

void fake_openai_server::note_finished() { --in_flight_; }

void fake_openai_server::serve(int fd) {
  std::optional<parsed_request> request = read_request(fd);
  if (request && request->path == "/v1/models") {
    send_all(fd, models_response);
  } else if (request) {
    served_request record{request->path, "", 0, request->arrival, {}};
    const request_shape shape = shape_of(*request);
    record.prompt = shape.prompt;
    record.num_prompt_ids = shape.prompt.empty() ? shape.prompt_tokens : 0;
    note_started();
    bool reported = false;
    // Called before the last bytes go out, so a client that saw them finds the request
    // recorded and no longer in flight.
    auto report = [&] {
      if (!reported) {
        reported = true;
        note_finished();
        std::lock_guard lock(mutex_);
        served_.push_back(record);
      }
    };
    if (wants(shape, "fail:status")) {
      report();
      send_status_failure(fd);
    } else if (send_all(fd, stream_header) && (!shape.chat || send_event(fd, role_chunk()))) {
      bool ok = true;
      const std::uint64_t num_tokens = wants(shape, "fail:hang")           ? 0
                                       : wants(shape, "fail:disconnect")   ? 3
                                       : wants(shape, "fail:stream_error") ? 1
                                       : wants(shape, "fail:garbage")      ? 1
                                                                           : shape.max_tokens;
      for (std::uint64_t k = 0; ok && k < num_tokens; ++k) {
        std::this_thread::sleep_until(record.receipt + options_.ttft_delay +
                                      static_cast<std::int64_t>(k) * options_.itl_delay);
        record.token_send_times.push_back(fake_clock::now());
        ok = send_event(fd, token_chunk(shape, k + 1 == shape.max_tokens));
      }
      report();
      if (ok) {
        send_ending(fd, shape, options_.omit_usage);
      }
    }
    report();
  }
  std::lock_guard lock(mutex_);
  std::erase(open_fds_, fd);
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
}

}  // namespace pagedserve::loadtest::testing
