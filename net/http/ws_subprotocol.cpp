#include "net/http/ws_subprotocol.h"

#include "net/http/header_list.h"

namespace pagedserve::net {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = hex_value(hex[i]);
    const int low = hex_value(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
  }
  return out;
}

}  // namespace

offered_subprotocols parse_offered_subprotocols(std::string_view header) {
  offered_subprotocols offered;
  for (const std::string_view entry : list_elements(header)) {
    if (entry == ws_subprotocol) {
      offered.pagedserve = true;
    } else if (!offered.api_key && entry.size() > ws_api_key_subprotocol_prefix.size() &&
               entry.substr(0, ws_api_key_subprotocol_prefix.size()) ==
                   ws_api_key_subprotocol_prefix) {
      offered.api_key = from_hex(entry.substr(ws_api_key_subprotocol_prefix.size()));
    }
  }
  return offered;
}

std::string upgrade_authorization(std::string_view authorization, std::string_view subprotocols) {
  if (!authorization.empty()) return std::string(authorization);
  const offered_subprotocols offered = parse_offered_subprotocols(subprotocols);
  return offered.api_key ? "Bearer " + *offered.api_key : std::string();
}

}  // namespace pagedserve::net
