#include "loadtest/app/prompt_text.h"

#include "runtime/tokenizer/demo_tokenizer.h"
#include "runtime/tokenizer/utf8.h"

namespace pagedserve::loadtest {

result<std::shared_ptr<const tokenizer>> load_prompt_tokenizer(const std::string& spec) {
  if (spec == "demo") {
    return make_demo_tokenizer();
  }
  auto loaded = tokenizer::load(spec);
  if (!loaded) {
    return make_error(loaded.err().code, "--tokenizer " + spec + ": " + loaded.err().message);
  }
  return std::move(*loaded);
}

status decode_prompts(std::vector<bench_request>& requests, const tokenizer& tok) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    bench_request& r = requests[i];
    if (!r.has_token_ids()) {
      continue;
    }
    r.prompt_text = utf8::sanitize(tok.decode(r.prompt_token_ids, /*skip_special_tokens=*/true));
    if (r.prompt_text.empty()) {
      return make_error(error_code::invalid_argument,
                        "request " + std::to_string(i) +
                            ": its token ids decode to no text (special tokens only?)");
    }
    r.prompt_token_ids.clear();
  }
  return {};
}

}  // namespace pagedserve::loadtest
