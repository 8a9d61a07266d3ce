#pragma once
// Request fields that vLLM or SGLang define and this server does not implement (yet). An
// unknown field stays ignored, as OpenAI does; but a client that sends one of these means
// something by it, so each is a 400 `unsupported` naming it unless it holds its neutral
// value (the peers' default): a client never silently gets a different result, e.g.
// unconstrained text for a `structural_tag`. docs/openai-api.md lists them.

#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"

namespace pagedserve::net {

// Every peer field of the endpoint `kind` (chat has a few of its own). Errors go to
// `reader`.
void refuse_peer_fields(body_reader& reader, api_kind kind);

}  // namespace pagedserve::net
