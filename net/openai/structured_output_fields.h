#pragma once
// The request fields that constrain the output to a grammar (sampling_params::
// structured_outputs; the engine compiles and enforces it, docs/structured-outputs.md):
//   response_format     OpenAI's: {"type": "text"}, {"type": "json_object"} or
//                       {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}
//   structured_outputs  vLLM's: {"json" | "regex" | "choice" | "grammar" | "json_object"}
//   guided_json, guided_regex, guided_choice, guided_grammar: vLLM's legacy names
//   json_schema, regex, ebnf: SGLang's
// At most one constraint in all; a malformed one is a 400 naming its field. A schema or
// grammar the engine cannot compile is a 400 from the engine naming the keyword.

#include "api/sampling_params.h"
#include "net/openai/body_reader.h"

namespace pagedserve::net {

void read_structured_outputs(body_reader& reader, sampling_params& s);

}  // namespace pagedserve::net
