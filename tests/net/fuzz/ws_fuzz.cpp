// libFuzzer target: the WebSocket frame path at /v1/stream. The input's first byte picks the
// form of the rest: odd, raw bytes sent after a valid upgrade (Beast's frame parser sees
// anything); even, records turned into well-formed masked frames, so the bytes reach the
// message handling (submits, cancels, control frames, fragments):
//   record = [fin·rsv·opcode byte] [length, 2 bytes little-endian] [payload]
// (a length past the input's end takes what is left). Sanitizers and the fake engine do the
// checking; the answer must start with the 101 of the upgrade.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tests/net/fuzz/loopback_server.h"

namespace {

constexpr std::string_view k_upgrade =
    "GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

// One client frame (RFC 6455 §5.2), masked with a fixed key.
void append_frame(std::string& out, std::uint8_t first_byte, std::string_view payload) {
  constexpr char mask[4] = {0x12, 0x34, 0x56, 0x78};
  out.push_back(static_cast<char>(first_byte));
  if (payload.size() < 126) {
    out.push_back(static_cast<char>(0x80 | payload.size()));
  } else {
    out.push_back(static_cast<char>(0x80 | 126));
    out.push_back(static_cast<char>(payload.size() >> 8));
    out.push_back(static_cast<char>(payload.size() & 0xff));
  }
  out.append(mask, 4);
  for (std::size_t i = 0; i < payload.size(); ++i)
    out.push_back(static_cast<char>(payload[i] ^ mask[i % 4]));
}

std::string frames_from_records(std::string_view records) {
  std::string out;
  while (records.size() >= 3) {
    const auto first_byte = static_cast<std::uint8_t>(records[0]);
    const std::size_t length =
        static_cast<std::uint8_t>(records[1]) |
        (static_cast<std::size_t>(static_cast<std::uint8_t>(records[2])) << 8);
    records.remove_prefix(3);
    const std::string_view payload = records.substr(0, length);
    records.remove_prefix(payload.size());
    append_frame(out, first_byte, payload);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static pagedserve::net::fuzzing::loopback_server server;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string frames = (data[0] & 1) != 0 ? std::string(rest) : frames_from_records(rest);
  const std::string answer = server.exchange({k_upgrade, frames});
  // Replaying an input by hand: PAGEDSERVE_FUZZ_ECHO=1 prints what the server answered.
  if (std::getenv("PAGEDSERVE_FUZZ_ECHO") != nullptr)
    std::fwrite(answer.data(), 1, answer.size(), stdout);
  if (answer.rfind("HTTP/1.1 101 ", 0) != 0) std::abort();
  return 0;
}
