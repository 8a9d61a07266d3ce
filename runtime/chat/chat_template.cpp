#include "runtime/chat/chat_template.h"

#include "runtime/chat/continue_final_message.h"
#include "runtime/chat/json_value.h"

namespace pagedserve {
namespace {

result<jinja::value> optional_list(const std::optional<boost::json::array>& list) {
  if (!list) return jinja::value(jinja::none_value{});
  return to_jinja_value(*list);
}

// transformers refuses documents that are not dicts before rendering.
bool documents_are_dicts(const std::optional<boost::json::array>& documents) {
  if (!documents) return true;
  for (const boost::json::value& document : *documents) {
    if (!document.is_object()) return false;
  }
  return true;
}

void set_special(jinja::dict_object& vars, const char* name,
                 const std::optional<std::string>& token) {
  if (token) vars.set(name, jinja::value(*token));
}

// The variables transformers passes: special tokens, then messages, tools, documents and
// add_generation_prompt, then the caller's kwargs (which override the special tokens).
// continue_final_message is not a variable: the rendered text is cut after the fact.
result<std::shared_ptr<jinja::dict_object>> template_variables(const chat_request& request) {
  auto vars = std::make_shared<jinja::dict_object>();
  set_special(*vars, "bos_token", request.specials.bos_token);
  set_special(*vars, "eos_token", request.specials.eos_token);
  set_special(*vars, "unk_token", request.specials.unk_token);
  set_special(*vars, "pad_token", request.specials.pad_token);
  auto messages = to_jinja_value(request.messages);
  if (!messages) return messages.err();
  vars->set("messages", std::move(messages.value()));
  auto tools = optional_list(request.tools);
  if (!tools) return tools.err();
  vars->set("tools", std::move(tools.value()));
  if (!documents_are_dicts(request.documents)) {
    return make_error(error_code::invalid_argument,
                      "Documents should be a list of dicts with 'title' and 'text' keys!");
  }
  auto documents = optional_list(request.documents);
  if (!documents) return documents.err();
  vars->set("documents", std::move(documents.value()));
  vars->set("add_generation_prompt", jinja::value(request.add_generation_prompt));
  for (const auto& [key, v] : request.extra) {
    auto converted = to_jinja_value(v);
    if (!converted) return converted.err();
    vars->set(std::string(key), std::move(converted.value()));
  }
  return vars;
}

}  // namespace

result<chat_request> parse_chat_request(const boost::json::object& object) {
  chat_request r;
  for (const auto& [key, v] : object) {
    if (key == "messages") {
      if (!v.is_array())
        return make_error(error_code::invalid_argument, "'messages' must be a list");
      r.messages = v.get_array();
    } else if (key == "add_generation_prompt" || key == "continue_final_message") {
      if (!v.is_bool()) {
        return make_error(error_code::invalid_argument,
                          "'" + std::string(key) + "' must be a boolean");
      }
      (key == "add_generation_prompt" ? r.add_generation_prompt : r.continue_final_message) =
          v.get_bool();
    } else if (key == "tools" || key == "documents") {
      if (v.is_null()) continue;
      if (!v.is_array()) {
        return make_error(error_code::invalid_argument, std::string(key).append(" must be a list"));
      }
      (key == "tools" ? r.tools : r.documents) = v.get_array();
    } else {
      r.extra[key] = v;
    }
  }
  if (!object.contains("messages"))
    return make_error(error_code::invalid_argument, "missing 'messages'");
  return r;
}

const std::string& chat_template::default_source() {
  static const std::string source =
      "{% for message in messages %}"
      "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
      "{% endfor %}"
      "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
  return source;
}

result<chat_template> chat_template::compile(std::string source) {
  auto program = jinja::compiled_template::compile(source);
  if (!program) return program.err();
  return chat_template(std::move(source), std::move(program.value()));
}

result<chat_template> chat_template::for_tokenizer(const tokenizer& tok) {
  return compile(tok.chat_template().value_or(default_source()));
}

result<std::string> chat_template::render(const chat_request& request) const {
  if (request.continue_final_message && request.add_generation_prompt) {
    return make_error(error_code::invalid_argument,
                      "continue_final_message and add_generation_prompt are not compatible. Use "
                      "continue_final_message when you want the model to continue the final "
                      "message, and add_generation_prompt when you want to add a header that will "
                      "prompt it to start a new assistant message instead.");
  }
  auto vars = template_variables(request);
  if (!vars) return vars.err();
  auto text = program_.render(std::move(vars.value()), limits_);
  if (!text || !request.continue_final_message) return text;
  return cut_after_final_message(std::move(text.value()), request.messages);
}

std::vector<token_id> encode_chat(const tokenizer& tok, const std::string& text) {
  return tok.encode(text, /*add_special_tokens=*/false);
}

}  // namespace pagedserve
