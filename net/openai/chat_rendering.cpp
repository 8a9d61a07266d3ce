#include "net/openai/chat_rendering.h"

#include <array>
#include <string_view>

namespace pagedserve::net {
namespace {

// Template variables the request itself sets; chat_template_kwargs may not replace them.
constexpr std::array<std::string_view, 4> k_reserved_kwargs = {"messages", "tools", "documents",
                                                               "add_generation_prompt"};

}  // namespace

void read_chat_template_fields(body_reader& reader, chat_request& chat) {
  chat.add_generation_prompt = reader.boolean("add_generation_prompt").value_or(true);
  if (reader.boolean("continue_final_message").value_or(false)) {
    reader.fail(unsupported("continue_final_message", ""));
  }
  if (reader.find("chat_template") != nullptr) {
    reader.fail(unsupported("chat_template", "the model's own template is used"));
  }
  const boost::json::object* kwargs = reader.object("chat_template_kwargs");
  if (kwargs == nullptr) return;
  for (const auto& [key, value] : *kwargs) {
    for (const std::string_view reserved : k_reserved_kwargs) {
      if (key == reserved) {
        reader.fail(bad_request("'chat_template_kwargs' may not set '" + std::string(key) + "'.",
                                "chat_template_kwargs"));
        return;
      }
    }
    chat.extra[key] = value;
  }
}

std::variant<std::string, api_error> render_chat_text(chat_request& chat,
                                                      const model_context& model) {
  chat.specials = model.tok->specials();
  result<std::string> text = model.template_->render(chat);
  if (!text) {
    return bad_request("The chat template could not render these messages: " + text.err().message,
                       "messages");
  }
  return std::move(*text);
}

}  // namespace pagedserve::net
