// libFuzzer target fuzz_chat_template: a chat template (the input up to its first NUL) is
// compiled and renders a small conversation, as tokenizer_config.json's template would for a
// request; after the NUL, the input is tried as the request's JSON ({"messages": [...], ...}).
// Renders run under the limits below, so a hostile template (an endless loop, a string that
// doubles each step) ends in an error value; a crash, a sanitizer report, a leak, an
// allocation past -malloc_limit_mb or a render past -timeout is a finding.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <boost/json.hpp>

#include "runtime/chat/chat_template.h"
#include "tests/runtime/fuzz/fuzz_folder.h"

namespace {

using namespace pagedserve;

// A tenth of the defaults (runtime/chat/jinja/builtins.h): the same checks, faster inputs.
jinja::render_limits fuzz_limits() {
  jinja::render_limits limits;
  limits.max_output_bytes = 1u << 20;
  limits.max_items = 1u << 16;
  limits.max_steps = 1'000'000;
  return limits;
}

chat_request default_request() {
  chat_request request;
  request.messages = boost::json::parse(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hi <b>there</b>"},
    {"role": "assistant", "content": "Hello!", "tool_calls": [{"type": "function",
      "function": {"name": "f", "arguments": {"x": 1}}}]},
    {"role": "tool", "content": "42", "tool_call_id": "c1"},
    {"role": "user", "content": [{"type": "text", "text": "and now?"}]}])")
                         .as_array();
  request.add_generation_prompt = true;
  request.specials.bos_token = "<s>";
  request.specials.eos_token = "</s>";
  return request;
}

chat_request request_from(std::string_view json) {
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(json, ec);
  if (!ec && value.is_object()) {
    if (auto parsed = parse_chat_request(value.get_object())) return *parsed;
  }
  return default_request();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pagedserve::fuzzing;
  const split_input parts =
      split_at_nul(std::string_view(reinterpret_cast<const char*>(data), size));
  auto program = chat_template::compile(std::string(parts.first));
  if (!program) return 0;
  program->set_limits(fuzz_limits());
  const chat_request request = parts.has_second ? request_from(parts.second) : default_request();
  if (auto text = program->render(request)) {
    if (text->size() > fuzz_limits().max_output_bytes) std::abort();
  }
  return 0;
}
