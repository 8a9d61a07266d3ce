#include "net/openai/peer_fields.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace pagedserve::net {
namespace {

// What a field holds when it asks for nothing (null always counts as absent).
enum class neutral : std::uint8_t {
  absent,  // any value asks for something
  false_value,
  true_value,
  zero,
  one,
  empty_array,
};

struct peer_field {
  std::string_view name;
  neutral value;
  std::string_view why;
  bool chat_only = false;
};

constexpr std::array<peer_field, 25> k_peer_fields = {{
    // Structured output: vLLM >= 0.12, its legacy names, SGLang's.
    {"structured_outputs", neutral::absent, "structured output is not implemented yet"},
    {"guided_json", neutral::absent, "structured output is not implemented yet"},
    {"guided_regex", neutral::absent, "structured output is not implemented yet"},
    {"guided_choice", neutral::absent, "structured output is not implemented yet"},
    {"guided_grammar", neutral::absent, "structured output is not implemented yet"},
    {"guided_decoding_backend", neutral::absent, "structured output is not implemented yet"},
    {"guided_whitespace_pattern", neutral::absent, "structured output is not implemented yet"},
    {"structural_tag", neutral::absent, "structured output is not implemented yet"},
    {"json_schema", neutral::absent, "structured output is not implemented yet"},
    {"regex", neutral::absent, "structured output is not implemented yet"},
    {"ebnf", neutral::absent, "structured output is not implemented yet"},
    // Sampling and stopping.
    {"logits_processors", neutral::absent, "no custom logits processors"},
    {"custom_logit_processor", neutral::absent, "no custom logits processors"},
    {"no_stop_trim", neutral::false_value, "only false is accepted"},
    {"stop_regex", neutral::absent, "no regular-expression stops"},
    {"use_beam_search", neutral::false_value, "no beam search"},
    {"length_penalty", neutral::one, "no beam search"},
    // Output and prompt handling.
    {"return_token_ids", neutral::false_value, "only false is accepted"},
    {"return_tokens_as_token_ids", neutral::false_value, "only false is accepted"},
    {"return_hidden_states", neutral::false_value, "only false is accepted"},
    {"prompt_embeds", neutral::absent, "prompts are text or token ids"},
    // Caching, reasoning, deployment.
    {"cache_salt", neutral::absent, "the prefix cache is shared by every request"},
    {"reasoning_effort", neutral::absent, "no reasoning controls"},
    {"thinking_token_budget", neutral::absent, "no reasoning controls"},
    {"kv_transfer_params", neutral::absent, "no disaggregated prefill"},
}};

bool is_neutral(const boost::json::value& v, neutral want) {
  switch (want) {
    case neutral::absent:
      return false;  // present and not null
    case neutral::false_value:
      return v.is_bool() && !v.get_bool();
    case neutral::true_value:
      return v.is_bool() && v.get_bool();
    case neutral::zero:
      return integral_value(v) == 0;
    case neutral::one:
      return v.is_number() && v.to_number<double>() == 1.0;
    case neutral::empty_array:
      return v.is_array() && v.get_array().empty();
  }
  return false;
}

}  // namespace

void refuse_peer_fields(body_reader& reader, api_kind kind) {
  for (const peer_field& field : k_peer_fields) {
    if (field.chat_only && kind != api_kind::chat_completion) continue;
    const boost::json::value* v = reader.find(field.name);
    if (v != nullptr && !is_neutral(*v, field.value)) {
      reader.fail(unsupported(std::string(field.name), field.why));
    }
  }
}

void refuse_response_format(body_reader& reader) {
  if (const boost::json::object* format = reader.object("response_format")) {
    const boost::json::value* type = format->if_contains("type");
    if (type == nullptr || !type->is_string() || type->get_string() != "text") {
      reader.fail(unsupported("response_format", "only {\"type\": \"text\"} is accepted"));
    }
  }
}

}  // namespace pagedserve::net
