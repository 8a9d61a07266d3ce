#pragma once
// server_url: "http://host:port" (path ignored) split for a TCP client. Only plain http.

#include <string>
#include <string_view>

#include "common/result.h"

namespace pagedserve::loadtest {

struct server_url {
  std::string host;
  std::string port = "80";
  // An IPv6 host is written in brackets, as in the Host header.
  [[nodiscard]] std::string host_port() const {
    const bool ipv6 = host.find(':') != std::string::npos;
    return (ipv6 ? "[" + host + "]" : host) + ":" + port;
  }
  [[nodiscard]] std::string to_string() const { return "http://" + host_port(); }
};

// Accepts "http://h:p", "http://h:p/", "http://h" (port 80), "h:p" and "[::1]:p"; rejects
// https (with a message saying TLS is not supported) and anything without a host.
[[nodiscard]] result<server_url> parse_server_url(std::string_view text);

}  // namespace pagedserve::loadtest
