// libFuzzer target fuzz_tokenizer_json: tokenizer.json up to the input's first NUL and, after
// it, tokenizer_config.json, loaded by tokenizer::load. A tokenizer that loads then encodes
// and decodes a short text (ASCII, a special-looking token, bytes outside ASCII), and streams
// its ids through the detokenizer: every id it produces must name a token. A refusal is an
// error value: only a crash, a sanitizer report, a leak or an allocation past
// -malloc_limit_mb is a finding.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runtime/tokenizer/detokenizer.h"
#include "runtime/tokenizer/tokenizer.h"
#include "tests/runtime/fuzz/fuzz_folder.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void exercise(const std::shared_ptr<const pagedserve::tokenizer>& tok) {
  constexpr std::string_view text = "Hello world! <s> x=12 \xc3\xa9t\xc3\xa9 \xf0\x9f\x99\x82 \xff";
  for (const bool specials : {false, true}) {
    const std::vector<pagedserve::token_id> ids = tok->encode(text, specials);
    (void)tok->decode(ids, !specials);
    pagedserve::detokenizer detok(tok);
    for (const pagedserve::token_id id : ids) {
      check(id >= 0);
      (void)tok->id_to_token(id);
      (void)tok->token_bytes(id);
      (void)detok.push(id);
    }
    (void)detok.flush();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pagedserve::fuzzing;
  const split_input parts =
      split_at_nul(std::string_view(reinterpret_cast<const char*>(data), size));
  write_file("tokenizer.json", parts.first);
  if (parts.has_second) {
    write_file("tokenizer_config.json", parts.second);
  } else {
    remove_file("tokenizer_config.json");
  }
  if (auto tok = pagedserve::tokenizer::load(scratch_folder())) exercise(*tok);
  return 0;
}
