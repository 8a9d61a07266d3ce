#include "net/openai/chat_rendering.h"

#include <array>
#include <string_view>

#include "net/openai/request_chat_template.h"

namespace pagedserve::net {
namespace {

// Template variables the request itself sets, which chat_template_kwargs may not replace,
// and chat_template, which transformers would take as the template.
constexpr std::array<std::string_view, 6> k_reserved_kwargs = {
    "messages",      "tools", "documents", "add_generation_prompt", "continue_final_message",
    "chat_template",
};

bool reserved_kwarg(std::string_view key) {
  for (const std::string_view reserved : k_reserved_kwargs) {
    if (key == reserved) return true;
  }
  return false;
}

// vLLM's check_generation_prompt refuses both given as true; with add_generation_prompt left
// at its default (true) transformers refuses the pair when rendering. Either way the
// generation prompt must be turned off explicitly to continue the final message.
void read_generation_flags(body_reader& reader, chat_request& chat) {
  const std::optional<bool> add_generation_prompt = reader.boolean("add_generation_prompt");
  chat.add_generation_prompt = add_generation_prompt.value_or(true);
  chat.continue_final_message = reader.boolean("continue_final_message").value_or(false);
  if (!chat.continue_final_message || !chat.add_generation_prompt) return;
  reader.fail(bad_request(add_generation_prompt
                              ? "Cannot set both `continue_final_message` and "
                                "`add_generation_prompt` to True."
                              : "`continue_final_message` needs `add_generation_prompt` set to "
                                "false (it defaults to true): the final message is continued "
                                "instead of starting a new assistant message.",
                          "continue_final_message"));
}

// vLLM's `documents: list[dict[str, str]]`, handed to the template as they are.
void read_documents(body_reader& reader, chat_request& chat) {
  const boost::json::array* documents = reader.array("documents");
  if (documents == nullptr) return;
  for (std::size_t i = 0; i < documents->size(); ++i) {
    const std::string param = "documents[" + std::to_string(i) + "]";
    const boost::json::value& document = (*documents)[i];
    if (!document.is_object()) return reader.fail(invalid_type(param, "an object", document));
    for (const auto& [key, value] : document.get_object()) {
      if (!value.is_string()) {
        return reader.fail(invalid_type(param + "." + std::string(key), "a string", value));
      }
    }
  }
  chat.documents = *documents;
}

// A chat_template inside the kwargs is a request template too (vLLM checks both places);
// trusted or not it cannot go there (vLLM: "unexpected chat template kwargs").
void read_template_kwargs(body_reader& reader, const model_context& model, chat_request& chat) {
  const boost::json::object* kwargs = reader.object("chat_template_kwargs");
  if (kwargs == nullptr) return;
  for (const auto& [key, value] : *kwargs) {
    if (key == "chat_template" && !value.is_null() && !model.trust_request_chat_template) {
      return reader.fail(untrusted_chat_template("chat_template_kwargs"));
    }
    if (reserved_kwarg(key)) {
      return reader.fail(
          bad_request("'chat_template_kwargs' may not set '" + std::string(key) + "'.",
                      "chat_template_kwargs"));
    }
    chat.extra[key] = value;
  }
}

}  // namespace

void read_chat_template_fields(body_reader& reader, const model_context& model,
                               chat_params& params) {
  read_generation_flags(reader, params.chat);
  read_documents(reader, params.chat);
  params.request_template = read_request_chat_template(reader, model);
  read_template_kwargs(reader, model, params.chat);
}

std::variant<std::string, api_error> render_chat_text(chat_params& params,
                                                      const model_context& model) {
  const chat_template* tmpl = params.request_template ? &*params.request_template : model.template_;
  if (model.tok == nullptr || tmpl == nullptr) {
    return bad_request(
        "This model has no tokenizer or chat template to render 'messages': use "
        "/v1/completions.",
        "messages");
  }
  params.chat.specials = model.tok->specials();
  result<std::string> text = tmpl->render(params.chat);
  if (!text) {
    return bad_request("The chat template could not render these messages: " + text.err().message,
                       "messages");
  }
  return std::move(*text);
}

}  // namespace pagedserve::net
