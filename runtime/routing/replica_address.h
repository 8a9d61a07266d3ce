#pragma once
// replica_address: one entry of `replicas:` — "local" (an engine in this process) or the
// HOST:PORT of an engine published by `pagedserve engine --publish` ("[::1]:7001" for an
// IPv6 literal). Also the form of `publish` itself.

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace pagedserve::routing {

struct replica_address {
  bool local = false;
  std::string host;  // without brackets
  std::uint16_t port = 0;

  // "local", or host:port as given (brackets back around an IPv6 host).
  [[nodiscard]] std::string to_string() const;
};

// "local" or HOST:PORT with a port in 1..65535; an error names the entry.
[[nodiscard]] result<replica_address> parse_replica_address(std::string_view text);

// HOST:PORT only (port 0 allowed: any free port), for `publish`.
[[nodiscard]] result<replica_address> parse_publish_address(std::string_view text);

}  // namespace pagedserve::routing
