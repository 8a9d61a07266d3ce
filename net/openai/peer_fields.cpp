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

constexpr std::array<peer_field, 16> k_peer_fields = {{
    // Structured output (structured_output_fields.h reads the rest).
    {"guided_whitespace_pattern", neutral::absent, "JSON is always generated compact"},
    {"structural_tag", neutral::absent, "no structural tags"},
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

}  // namespace pagedserve::net
