// libFuzzer target: raw bytes as one client connection's request stream, through the whole
// HTTP path (http_session: request_reader, request_rules, router, the OpenAI parsers,
// completion_call, the WebSocket upgrade) into the fake engine. Besides the sanitizers it
// checks that whatever came back starts as an HTTP/1.1 response.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tests/net/fuzz/loopback_server.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static pagedserve::net::fuzzing::loopback_server server;
  const std::string answer =
      server.exchange({std::string_view(reinterpret_cast<const char*>(data), size)});
  // Replaying an input by hand: PAGEDSERVE_FUZZ_ECHO=1 prints what the server answered.
  if (std::getenv("PAGEDSERVE_FUZZ_ECHO") != nullptr)
    std::fwrite(answer.data(), 1, answer.size(), stdout);
  if (!answer.empty() && answer.rfind("HTTP/1.1 ", 0) != 0) std::abort();
  return 0;
}
