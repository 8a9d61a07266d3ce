// http_session: the APIs that are chat underneath (chat_dialect.h): OpenAI's Responses
// (POST /v1/responses, GET and DELETE /v1/responses/{id}) and Anthropic's Messages
// (POST /v1/messages, /v1/messages/count_tokens).

#include <utility>

#include <boost/json.hpp>

#include "net/http/http_session.h"
#include "net/openai/messages_dialect.h"
#include "net/openai/messages_request.h"
#include "net/openai/responses_dialect.h"
#include "net/openai/responses_request.h"

namespace pagedserve::net {
namespace {

std::string_view to_std(beast::string_view s) { return {s.data(), s.size()}; }

api_error response_not_found(std::string_view id) {
  return not_found("Response with id '" + printable_excerpt(id) + "' not found.");
}

}  // namespace

void http_session::handle_responses() {
  if (refused_while_draining()) return;
  guard(io_stage::body, [&] {
    const std::optional<boost::json::value> body = json_body_or_answer();
    if (!body) return;
    auto parsed = parse_responses_request(*body, ctx_.model, ctx_.responses);
    if (auto* err = std::get_if<api_error>(&parsed)) {
      answer_error(*err);
      return;
    }
    responses_request& request = std::get<responses_request>(parsed);
    auto dialect = std::make_unique<responses_dialect>(request.chat.model, std::move(request.echo),
                                                       std::move(request.conversation),
                                                       request.store ? &ctx_.responses : nullptr);
    start_call(std::move(request.chat), std::move(dialect));
  });
}

// OpenAI answers an id it does not hold (never stored, evicted, deleted) with 404.
void http_session::handle_stored_response(route r) {
  const std::string_view id = response_id_of(to_std(request_.target()));
  if (r == route::response_get) {
    const std::optional<stored_response> stored = ctx_.responses.get(std::string(id));
    if (!stored) {
      answer_error(response_not_found(id));
      return;
    }
    answer(200, "application/json", boost::json::serialize(stored->response));
    return;
  }
  if (!ctx_.responses.erase(std::string(id))) {
    answer_error(response_not_found(id));
    return;
  }
  const boost::json::object deleted{{"id", id}, {"object", "response.deleted"}, {"deleted", true}};
  answer(200, "application/json", boost::json::serialize(deleted));
}

void http_session::handle_messages(route r) {
  if (refused_while_draining()) return;
  guard(io_stage::body, [&] {
    const std::optional<boost::json::value> body = json_body_or_answer();
    if (!body) return;
    const messages_endpoint endpoint =
        r == route::count_tokens ? messages_endpoint::count_tokens : messages_endpoint::create;
    parse_outcome parsed = parse_messages_request(*body, ctx_.model, endpoint);
    if (auto* err = std::get_if<api_error>(&parsed)) {
      answer_error(*err);
      return;
    }
    api_request& request = std::get<api_request>(parsed);
    const auto prompt_tokens =
        static_cast<std::uint32_t>(request.prompts.front().request.prompt_token_ids.size());
    if (endpoint == messages_endpoint::count_tokens) {
      answer(200, "application/json",
             boost::json::serialize(boost::json::object{{"input_tokens", prompt_tokens}}));
      return;
    }
    auto dialect = std::make_unique<messages_dialect>(request.model, prompt_tokens);
    start_call(std::move(request), std::move(dialect));
  });
}

}  // namespace pagedserve::net
