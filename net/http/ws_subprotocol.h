#pragma once
// ws_subprotocol: the Sec-WebSocket-Protocol values /v1/stream understands (docs/websocket.md).
// A browser's WebSocket cannot send an Authorization header, so a page offers the API key as
// a subprotocol instead: "pagedserve.api-key.<the key's UTF-8 bytes in hex>" (hex: a
// subprotocol must be an HTTP token, RFC 6455 §4.1), next to "pagedserve", the one the server
// selects. A browser fails a handshake whose answer selects none of the protocols it
// offered, and the key is never echoed back. Kubernetes' API server carries bearer tokens
// the same way.

#include <optional>
#include <string>
#include <string_view>

namespace pagedserve::net {

inline constexpr std::string_view ws_subprotocol = "pagedserve";
inline constexpr std::string_view ws_api_key_subprotocol_prefix = "pagedserve.api-key.";

struct offered_subprotocols {
  bool pagedserve = false;  // "pagedserve" was offered: the answer selects it
  // The key of a "pagedserve.api-key.<hex>" entry (the first one); nothing when none was
  // offered or its hex is malformed (odd length, a non-hex digit): that counts as no key.
  std::optional<std::string> api_key;
};

// `header`: the Sec-WebSocket-Protocol value, a comma-separated list of tokens.
[[nodiscard]] offered_subprotocols parse_offered_subprotocols(std::string_view header);

// The credentials of an upgrade request: its Authorization header when it has one, else
// "Bearer <key>" from an offered api-key subprotocol, else "".
[[nodiscard]] std::string upgrade_authorization(std::string_view authorization,
                                                std::string_view subprotocols);

}  // namespace pagedserve::net
