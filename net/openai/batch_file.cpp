#include "net/openai/batch_file.h"

#include <utility>

#include <boost/json.hpp>

#include "net/openai/response_ids.h"
#include "net/openai/responses_dialect.h"
#include "net/openai/responses_request.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

batch_refusal malformed(std::optional<std::string> custom_id, std::string message) {
  return {std::move(custom_id), std::nullopt, std::move(message)};
}

batch_line refused(std::string custom_id, api_error err) {
  return batch_refusal{std::move(custom_id), std::move(err), {}};
}

batch_line parse_body(std::string custom_id, std::string_view url, const json::value& body,
                      const model_context& model, response_store& store) {
  if (url == "/v1/responses") {
    auto parsed = parse_responses_request(body, model, store);
    if (auto* err = std::get_if<api_error>(&parsed)) return refused(std::move(custom_id), *err);
    responses_request& r = std::get<responses_request>(parsed);
    auto dialect = std::make_unique<responses_dialect>(
        r.chat.model, std::move(r.echo), std::move(r.conversation), r.store ? &store : nullptr);
    return batch_request{std::move(custom_id), std::move(r.chat), std::move(dialect)};
  }
  parse_outcome parsed = url == "/v1/chat/completions" ? parse_chat_request(body, model)
                         : url == "/v1/completions"    ? parse_completion_request(body, model)
                                                       : parse_embedding_request(body, model);
  if (auto* err = std::get_if<api_error>(&parsed)) return refused(std::move(custom_id), *err);
  return batch_request{std::move(custom_id), std::get<api_request>(std::move(parsed)), nullptr};
}

}  // namespace

batch_line parse_batch_line(std::string_view line, const model_context& model,
                            response_store& store) {
  json::error_code ec;
  const json::value v = json::parse(line, ec);
  if (ec || !v.is_object()) return malformed(std::nullopt, "the line is not a JSON object");
  const json::object& o = v.get_object();
  const json::value* id = o.if_contains("custom_id");
  if (id == nullptr || !id->is_string())
    return malformed(std::nullopt, "'custom_id' must be a string");
  std::string custom_id(id->get_string());
  const json::value* method = o.if_contains("method");
  if (method != nullptr && !(method->is_string() && method->get_string() == "POST")) {
    return malformed(custom_id, "'method' must be \"POST\"");
  }
  const json::value* url = o.if_contains("url");
  // Views on both sides: a mixed conditional would build a temporary json::string.
  const std::string_view u =
      url != nullptr && url->is_string() ? std::string_view(url->get_string()) : std::string_view();
  if (u != "/v1/chat/completions" && u != "/v1/completions" && u != "/v1/embeddings" &&
      u != "/v1/responses") {
    return malformed(custom_id,
                     "'url' must be /v1/chat/completions, /v1/completions, "
                     "/v1/embeddings or /v1/responses");
  }
  const json::value* body = o.if_contains("body");
  if (body == nullptr || !body->is_object())
    return malformed(custom_id, "'body' must be an object");
  if (const json::value* stream = body->get_object().if_contains("stream");
      stream != nullptr && stream->is_bool() && stream->get_bool()) {
    return refused(std::move(custom_id),
                   bad_request("'stream' is not supported in a batch file.", "stream"));
  }
  return parse_body(std::move(custom_id), u, *body, model, store);
}

std::string batch_response_line(const std::string& custom_id, unsigned status_code,
                                std::string_view body) {
  json::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec) parsed = json::string(body);
  const json::object line{{"id", make_prefixed_id("batch_req_")},
                          {"custom_id", custom_id},
                          {"response",
                           {{"status_code", status_code},
                            {"request_id", make_prefixed_id("")},
                            {"body", std::move(parsed)}}},
                          {"error", nullptr}};
  return json::serialize(line);
}

std::string batch_refusal_line(const batch_refusal& refusal) {
  if (refusal.api) {
    return batch_response_line(refusal.custom_id.value_or(""), refusal.api->status,
                               to_body(*refusal.api));
  }
  const json::object line{
      {"id", make_prefixed_id("batch_req_")},
      {"custom_id", refusal.custom_id ? json::value(*refusal.custom_id) : json::value(nullptr)},
      {"response", nullptr},
      {"error", {{"code", "invalid_request"}, {"message", refusal.message}}}};
  return json::serialize(line);
}

}  // namespace pagedserve::net
