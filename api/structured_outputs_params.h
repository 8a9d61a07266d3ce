#pragma once
// structured_outputs_params: vLLM's StructuredOutputsParams, one constraint on the text a
// sequence may generate. The engine compiles it to a grammar (runtime/grammar) once per
// distinct constraint and masks every step's logits with it; the OpenAI layer fills it from
// response_format, structured_outputs or the guided_* fields.

#include <cstdint>
#include <string>
#include <vector>

namespace pagedserve {

struct structured_outputs_params {
  enum class kind : std::uint8_t {
    json,         // `spec` is a JSON Schema (its JSON text)
    json_object,  // any JSON object; `spec` is empty
    regex,        // `spec` is an ECMAScript regular expression, matched in full
    choice,       // exactly one of `choice`
    grammar,      // `spec` is a GBNF grammar (llama.cpp's and xgrammar's EBNF)
  };
  kind type = kind::json_object;
  std::string spec{};
  std::vector<std::string> choice{};

  // Equal keys: the same grammar (the compiled-grammar cache's key).
  [[nodiscard]] std::string cache_key() const;
};

[[nodiscard]] const char* to_string(structured_outputs_params::kind kind);

}  // namespace pagedserve
