#include "loadtest/core/server_url.h"

#include <algorithm>
#include <cctype>

namespace pagedserve::loadtest {
namespace {

bool is_port(std::string_view text) {
  return !text.empty() && text.size() <= 5 && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  }) && std::stoul(std::string(text)) <= 65535;
}

error bad_url(std::string_view text, std::string_view why) {
  return make_error(error_code::invalid_argument,
                    "bad server URL '" + std::string(text) + "': " + std::string(why));
}

}  // namespace

result<server_url> parse_server_url(std::string_view text) {
  std::string_view rest = text;
  if (rest.starts_with("https://")) {
    return bad_url(text, "https is not supported (plain http only, no TLS)");
  }
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.find("://") != std::string_view::npos) {
    return bad_url(text, "only http:// is supported");
  }
  rest = rest.substr(0, rest.find('/'));  // the path is ignored
  server_url url;
  std::string_view port;
  if (rest.starts_with("[")) {  // an IPv6 literal
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      return bad_url(text, "unterminated '['");
    }
    url.host = std::string(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') {
        return bad_url(text, "expected ':' after ']'");
      }
      port = rest.substr(1);
    }
  } else {
    const std::size_t colon = rest.rfind(':');
    url.host = std::string(rest.substr(0, colon));
    if (colon != std::string_view::npos) {
      port = rest.substr(colon + 1);
    }
  }
  if (url.host.empty()) {
    return bad_url(text, "no host");
  }
  if (!port.empty() || rest.ends_with(":")) {
    if (!is_port(port)) {
      return bad_url(text, "the port is not a number in [0, 65535]");
    }
    url.port = std::string(port);
  }
  return url;
}

}  // namespace pagedserve::loadtest
