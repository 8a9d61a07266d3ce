#include "net/openai/chat_dialect.h"

namespace pagedserve::net {

std::string_view string_or_empty(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

chat_chunk_view read_chat_chunk(const boost::json::object& chunk) {
  chat_chunk_view view;
  if (const boost::json::value* u = chunk.if_contains("usage"); u != nullptr && u->is_object()) {
    view.usage = &u->get_object();
  }
  const boost::json::value* choices = chunk.if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->get_array().empty()) return view;
  const boost::json::object& choice = choices->get_array().front().get_object();
  if (const boost::json::value* d = choice.if_contains("delta"); d != nullptr && d->is_object()) {
    const boost::json::object& delta = d->get_object();
    view.reasoning = string_or_empty(delta, "reasoning_content");
    view.content = string_or_empty(delta, "content");
    if (const boost::json::value* calls = delta.if_contains("tool_calls");
        calls != nullptr && calls->is_array()) {
      view.tool_calls = &calls->get_array();
    }
  }
  if (const boost::json::value* f = choice.if_contains("finish_reason");
      f != nullptr && !f->is_null()) {
    view.finished = &choice;
  }
  return view;
}

}  // namespace pagedserve::net
