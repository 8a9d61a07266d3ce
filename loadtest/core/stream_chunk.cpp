#include "loadtest/core/stream_chunk.h"

#include <boost/json.hpp>

namespace pagedserve::loadtest {
namespace {

namespace json = boost::json;

error bad_chunk(std::string_view why, std::string_view data) {
  constexpr std::size_t max_quoted = 200;
  std::string quoted(data.substr(0, max_quoted));
  if (data.size() > max_quoted) {
    quoted += "...";
  }
  return make_error(error_code::corrupt_data,
                    "bad stream chunk (" + std::string(why) + "): " + quoted);
}

// What one choice of a chunk says.
struct choice_view {
  bool has_text = false;  // the route's text field is a string (possibly empty)
  std::size_t bytes = 0;
  bool announces_role = false;  // chat: delta.role is set
  bool finishes = false;        // finish_reason is not null

  // A token arrival: text, or an empty text that is neither the chat role announcement nor
  // the finish marker (a token whose text is held back, e.g. an incomplete UTF-8 sequence).
  [[nodiscard]] bool carries_tokens() const {
    return has_text && (bytes > 0 || (!announces_role && !finishes));
  }
};

// Adds a string field's length to `view`; false when the field is there but not a string.
bool add_text(const json::object& object, std::string_view key, choice_view& view) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) {
    return true;
  }
  if (!value->is_string()) {
    return false;
  }
  view.has_text = true;
  view.bytes += value->get_string().size();
  return true;
}

// False when the choice is malformed for the route.
bool read_choice(const json::object& choice, api_kind kind, choice_view& view) {
  const json::value* finish = choice.if_contains("finish_reason");
  view.finishes = finish != nullptr && !finish->is_null();
  if (kind == api_kind::completions) {
    return add_text(choice, "text", view);
  }
  const json::value* delta = choice.if_contains("delta");
  if (delta == nullptr || delta->is_null()) {
    return true;
  }
  if (!delta->is_object()) {
    return false;
  }
  const json::value* role = delta->get_object().if_contains("role");
  view.announces_role = role != nullptr && !role->is_null();
  return add_text(delta->get_object(), "content", view) &&
         add_text(delta->get_object(), "reasoning_content", view);
}

std::optional<std::uint64_t> count_of(const json::object& usage, std::string_view key) {
  const json::value* value = usage.if_contains(key);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (value->is_uint64()) {
    return value->get_uint64();
  }
  if (value->is_int64() && value->get_int64() >= 0) {
    return static_cast<std::uint64_t>(value->get_int64());
  }
  return std::nullopt;
}

// The message of an error payload, or nullopt when the object is not one.
std::optional<std::string> error_message(const json::object& object) {
  if (const json::value* err = object.if_contains("error"); err != nullptr && !err->is_null()) {
    if (err->is_string()) {
      return std::string(err->get_string());
    }
    if (const json::object* inner = err->if_object(); inner != nullptr) {
      if (const json::value* m = inner->if_contains("message"); m != nullptr && m->is_string()) {
        return std::string(m->get_string());
      }
    }
    return json::serialize(*err);
  }
  const json::value* type = object.if_contains("object");
  if (type != nullptr && type->is_string() && type->get_string() == "error") {
    const json::value* m = object.if_contains("message");
    return m != nullptr && m->is_string() ? std::string(m->get_string()) : json::serialize(object);
  }
  return std::nullopt;
}

}  // namespace

result<stream_chunk> parse_stream_chunk(std::string_view data, api_kind kind) {
  stream_chunk chunk;
  if (data == "[DONE]") {
    chunk.done = true;
    return chunk;
  }
  boost::system::error_code ec;
  json::value parsed = json::parse(data, ec);
  if (ec || !parsed.is_object()) {
    return bad_chunk(ec ? "not JSON" : "not a JSON object", data);
  }
  const json::object& object = parsed.get_object();
  if (std::optional<std::string> message = error_message(object)) {
    chunk.error = std::move(message);
    return chunk;
  }
  const json::value* choices = object.if_contains("choices");
  const json::value* usage = object.if_contains("usage");
  if (choices == nullptr && (usage == nullptr || usage->is_null())) {
    return bad_chunk("neither choices nor usage", data);
  }
  if (choices != nullptr && !choices->is_array()) {
    return bad_chunk("choices is not an array", data);
  }
  static const json::array no_choices;
  const json::array& list = choices != nullptr ? choices->get_array() : no_choices;
  for (const json::value& choice : list) {
    choice_view view;
    if (!choice.is_object() || !read_choice(choice.get_object(), kind, view)) {
      return bad_chunk("a choice without the route's text field", data);
    }
    chunk.num_token_choices += view.carries_tokens() ? 1 : 0;
    chunk.text_bytes += view.bytes;
    chunk.has_finish_reason |= view.finishes;
  }
  if (usage != nullptr && !usage->is_null()) {
    const json::object* counts = usage->if_object();
    std::optional<std::uint64_t> prompt =
        counts ? count_of(*counts, "prompt_tokens") : std::nullopt;
    std::optional<std::uint64_t> completion =
        counts ? count_of(*counts, "completion_tokens") : std::nullopt;
    if (!prompt || !completion) {
      return bad_chunk("usage without prompt_tokens and completion_tokens", data);
    }
    chunk.usage = usage_counts{*prompt, *completion};
  }
  return chunk;
}

}  // namespace pagedserve::loadtest
