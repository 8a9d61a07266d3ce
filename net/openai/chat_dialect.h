#pragma once
// chat_dialect: an API that is chat completions underneath (OpenAI's Responses, Anthropic's
// Messages). Its request is translated into a /v1/chat/completions body and parsed by
// parse_chat_request, so the same conversation and sampling give exactly the tokens chat
// gives (the same template, tool grammar, reasoning split and tool-call parser); its
// dialect turns what response_builder makes of the engine's events (chat.completion.chunk
// payloads, or the one chat.completion body) into its own wire shapes. Strand-confined, like
// the builder it follows.

#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

// One server-sent event: "event: <name>\ndata: <data>\n\n" (no name: "data: <data>\n\n").
struct sse_event {
  std::string name;
  std::string data;
};

// What one chat.completion.chunk says (a translated request has one choice): read once,
// the same way, for every dialect.
struct chat_chunk_view {
  const boost::json::object* usage = nullptr;  // the last chunk's
  std::string_view reasoning;                  // delta.reasoning_content
  std::string_view content;                    // delta.content ("" on the role chunk)
  const boost::json::array* tool_calls = nullptr;
  const boost::json::object* finished = nullptr;  // the choice, once its finish_reason is set
};
[[nodiscard]] chat_chunk_view read_chat_chunk(const boost::json::object& chunk);

// o[key] when it is a string, else "".
[[nodiscard]] std::string_view string_or_empty(const boost::json::object& o, std::string_view key);

class chat_dialect {
 public:
  virtual ~chat_dialect() = default;

  // Streaming: the events for one chat.completion.chunk (the last one carries the usage,
  // which the translated request always asks for).
  virtual void on_chunk(const boost::json::object& chunk, std::vector<sse_event>& out) = 0;
  // Streaming: the events that end the stream, after the last chunk. There is no [DONE].
  virtual void close(std::vector<sse_event>& out) = 0;
  // Non-streaming: the response body, from the whole chat.completion body.
  [[nodiscard]] virtual std::string body(const boost::json::object& completion) = 0;
  // An error after the stream began (one before it is answered by the session, in the
  // route's error shape).
  [[nodiscard]] virtual sse_event error_event(const api_error& err) = 0;
};

}  // namespace pagedserve::net
