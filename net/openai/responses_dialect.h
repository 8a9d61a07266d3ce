#pragma once
// The Responses API's answer (chat_dialect.h): a "response" object, stored when the request
// asked (store, OpenAI's default) so GET /v1/responses/{id} and previous_response_id find it.
// Streaming, OpenAI's event sequence, each event with its sequence_number:
//   response.created, response.in_progress;
//   per output item: response.output_item.added, then
//     reasoning:     response.reasoning_text.delta ... .done
//     message:       response.content_part.added, response.output_text.delta ... .done,
//                    response.content_part.done
//     function_call: response.function_call_arguments.delta ... .done
//   and response.output_item.done;
//   response.completed (or response.incomplete when max_output_tokens ended it).
// An engine error mid-stream is an "error" event. Usage: input_tokens with
// input_tokens_details.cached_tokens (the prefix cache's), output_tokens; reasoning_tokens
// is 0 (the engine does not count the reasoning part's tokens apart).

#include <cstdint>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "net/openai/chat_dialect.h"
#include "net/openai/response_store.h"

namespace pagedserve::net {

class responses_dialect final : public chat_dialect {
 public:
  // `echo`: the request fields the response repeats; `conversation`: its turns so far
  // (stored with the output when `store` is set).
  responses_dialect(std::string model, boost::json::object echo, boost::json::array conversation,
                    response_store* store);

  void on_chunk(const boost::json::object& chunk, std::vector<sse_event>& out) override;
  void close(std::vector<sse_event>& out) override;
  [[nodiscard]] std::string body(const boost::json::object& completion) override;
  [[nodiscard]] sse_event error_event(const api_error& err) override;

 private:
  enum class item { none, reasoning, message, function_call };

  sse_event event(std::string_view type, boost::json::object data);
  [[nodiscard]] boost::json::object response_object(std::string_view status) const;
  void open_item(item kind, boost::json::object added, std::vector<sse_event>& out);
  void close_item(std::vector<sse_event>& out);
  void on_text(item kind, std::string_view text, std::vector<sse_event>& out);
  void on_tool_calls(const boost::json::array& calls, std::vector<sse_event>& out);
  void read_usage(const boost::json::object& usage);
  void read_finish(const boost::json::object& choice);
  void store_response(const boost::json::object& response);

  std::string id_;
  std::string model_;
  std::int64_t created_at_ = 0;
  boost::json::object echo_;
  boost::json::array conversation_;
  response_store* store_;  // null: not stored
  std::int64_t sequence_ = 0;
  bool started_ = false;
  boost::json::array items_;  // the output so far (finished items complete)
  item open_ = item::none;
  std::string open_id_;
  std::string open_text_;  // the open item's text or arguments
  boost::json::object usage_;
  bool incomplete_ = false;
};

}  // namespace pagedserve::net
