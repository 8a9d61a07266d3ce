#pragma once
// The OpenAI batch file format (`pagedserve run-batch`, vLLM's run_batch):
//   input line:  {"custom_id": "...", "method": "POST", "url": "/v1/chat/completions",
//                 "body": {...}}       url: /v1/chat/completions, /v1/completions,
//                                      /v1/embeddings or /v1/responses
//   output line: {"id": "batch_req_<hex>", "custom_id": "...",
//                 "response": {"status_code": 200, "request_id": "<hex>", "body": {...}},
//                 "error": null}
// A body the API refuses is answered like the server would, with its status and error body
// in `response`; a line that is not a request at all (not JSON, no custom_id, another method
// or url, stream true) has `response` null and `error` {"code", "message"}. Either way the
// line is answered and the file goes on.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "net/openai/api_request.h"
#include "net/openai/chat_dialect.h"
#include "net/openai/response_store.h"

namespace pagedserve::net {

struct batch_request {
  std::string custom_id;
  api_request request;
  std::unique_ptr<chat_dialect> dialect;  // /v1/responses: its shapes over chat's
};

// A line answered without running anything: `api` set when the body was refused (a
// response with that status), else a malformed line (`message`, no response).
struct batch_refusal {
  std::optional<std::string> custom_id;
  std::optional<api_error> api;
  std::string message;
};

using batch_line = std::variant<batch_request, batch_refusal>;

// `store` holds /v1/responses lines' stored responses (previous_response_id works between
// lines that finished earlier).
[[nodiscard]] batch_line parse_batch_line(std::string_view line, const model_context& model,
                                          response_store& store);

[[nodiscard]] std::string batch_response_line(const std::string& custom_id, unsigned status_code,
                                              std::string_view body);
[[nodiscard]] std::string batch_refusal_line(const batch_refusal& refusal);

}  // namespace pagedserve::net
