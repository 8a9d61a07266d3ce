#include "runtime/routing/replica_address.h"

#include <charconv>

namespace pagedserve::routing {
namespace {

result<replica_address> parse_host_port(std::string_view text, bool allow_port_zero) {
  const auto bad = [&](std::string_view why) {
    std::string message = "\"";
    message.append(text).append("\" is not HOST:PORT (").append(why).append(")");
    return make_error(error_code::invalid_argument, std::move(message));
  };
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return bad("no host before ':'");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return bad("unclosed '['");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 host goes in brackets: [::1]:7001");
  }
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() ||
      port > 65535 || (port == 0 && !allow_port_zero)) {
    return bad(allow_port_zero ? "the port must be 0..65535" : "the port must be 1..65535");
  }
  return replica_address{
      .local = false, .host = std::string(host), .port = static_cast<std::uint16_t>(port)};
}

}  // namespace

std::string replica_address::to_string() const {
  if (local) return "local";
  const bool ipv6 = host.find(':') != std::string::npos;
  std::string out;
  if (ipv6) out.push_back('[');
  out.append(host);
  if (ipv6) out.push_back(']');
  out.push_back(':');
  out.append(std::to_string(port));
  return out;
}

result<replica_address> parse_replica_address(std::string_view text) {
  if (text == "local") return replica_address{.local = true, .host = {}, .port = 0};
  return parse_host_port(text, false);
}

result<replica_address> parse_publish_address(std::string_view text) {
  return parse_host_port(text, true);
}

}  // namespace pagedserve::routing
