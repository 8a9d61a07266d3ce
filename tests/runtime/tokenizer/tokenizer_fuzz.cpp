// libFuzzer target (clang, -DPAGEDSERVE_FUZZ=ON): arbitrary bytes through the Llama-3 and
// Llama-2 tokenizers. Encoding must not crash, decoding gives back the sanitized input for
// byte-level BPE, and the streaming detokenizer reproduces decode() in valid UTF-8 pieces.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/tokenizer/detokenizer.h"
#include "runtime/tokenizer/tokenizer.h"
#include "runtime/tokenizer/utf8.h"
#include "tests/support/fixtures.h"

namespace {

std::shared_ptr<const pagedserve::tokenizer> load(const char* family) {
  auto tok = pagedserve::tokenizer::load(pagedserve::testing::tokenizers_dir() / family);
  if (!tok) std::abort();
  return *tok;
}

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto llama3 = load("llama3");
  static const auto llama2 = load("llama2");
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string clean = pagedserve::utf8::sanitize(text);
  for (const auto& tok : {llama3, llama2}) {
    const auto ids = tok->encode(text, true);
    const std::string decoded = tok->decode(ids, false);
    check(pagedserve::utf8::is_valid(decoded));
    pagedserve::detokenizer detok(tok);
    std::string streamed;
    for (const auto id : ids) {
      const std::string piece = detok.push(id);
      check(pagedserve::utf8::is_valid(piece));
      streamed += piece;
    }
    streamed += detok.flush();
    check(streamed == decoded);
  }
  check(llama3->decode(llama3->encode(text, false), false) == clean);
  return 0;
}
