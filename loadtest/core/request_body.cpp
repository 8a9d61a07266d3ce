#include "loadtest/core/request_body.h"

#include <cstdio>
#include <cstdlib>

namespace pagedserve::loadtest {
namespace {

namespace json = boost::json;

json::value prompt_value(const bench_request& request) {
  if (!request.has_token_ids()) {
    return json::string(request.prompt_text);
  }
  json::array ids;
  ids.reserve(request.prompt_token_ids.size());
  for (token_id id : request.prompt_token_ids) {
    ids.emplace_back(id);
  }
  return ids;
}

}  // namespace

status check_request_kind(const std::vector<bench_request>& workload, api_kind kind) {
  if (kind != api_kind::chat_completions) {
    return {};
  }
  for (std::size_t i = 0; i < workload.size(); ++i) {
    if (workload[i].has_token_ids()) {
      return make_error(error_code::invalid_argument,
                        "request " + std::to_string(i) +
                            " has a token-id prompt, which /v1/chat/completions cannot take: "
                            "use /v1/completions or a workload of text prompts");
    }
  }
  return {};
}

std::string make_request_body(const bench_request& request, std::size_t index,
                              const body_options& options) {
  json::object body;
  body["model"] = options.model;
  if (options.kind == api_kind::chat_completions) {
    if (request.has_token_ids()) {
      std::fprintf(stderr, "make_request_body: request %zu has token ids but goes to chat\n",
                   index);
      std::abort();
    }
    json::object message;
    message["role"] = "user";
    message["content"] = request.prompt_text;
    body["messages"] = json::array{std::move(message)};
  } else {
    body["prompt"] = prompt_value(request);
  }
  body["max_tokens"] = request.max_tokens;
  body["temperature"] = options.temperature;
  body["stream"] = true;
  body["stream_options"] = json::object{{"include_usage", true}};
  if (options.ignore_eos) {
    body["ignore_eos"] = true;
  }
  if (options.seed) {
    body["seed"] = *options.seed + index;
  }
  for (const auto& field : options.extra) {
    body[field.key()] = field.value();
  }
  return json::serialize(body);
}

}  // namespace pagedserve::loadtest
