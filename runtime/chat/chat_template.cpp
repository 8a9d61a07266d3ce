#include "runtime/chat/chat_template.h"

#include "runtime/chat/json_value.h"

namespace pagedserve {
namespace {

result<jinja::value> optional_list(const std::optional<boost::json::array>& list) {
  if (!list) return jinja::value(jinja::none_value{});
  return to_jinja_value(*list);
}

void set_special(jinja::dict_object& vars, const char* name,
                 const std::optional<std::string>& token) {
  if (token) vars.set(name, jinja::value(*token));
}

}  // namespace

result<chat_request> parse_chat_request(const boost::json::object& object) {
  chat_request r;
  for (const auto& [key, v] : object) {
    if (key == "messages") {
      if (!v.is_array())
        return make_error(error_code::invalid_argument, "'messages' must be a list");
      r.messages = v.get_array();
    } else if (key == "add_generation_prompt") {
      if (!v.is_bool())
        return make_error(error_code::invalid_argument,
                          "'add_generation_prompt' must be a boolean");
      r.add_generation_prompt = v.get_bool();
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

// The variables transformers passes: special tokens, then messages, tools, documents and
// add_generation_prompt, then the caller's kwargs (which override the special tokens).
result<std::string> chat_template::render(const chat_request& request) const {
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
  auto documents = optional_list(request.documents);
  if (!documents) return documents.err();
  vars->set("documents", std::move(documents.value()));
  vars->set("add_generation_prompt", jinja::value(request.add_generation_prompt));
  for (const auto& [key, v] : request.extra) {
    auto converted = to_jinja_value(v);
    if (!converted) return converted.err();
    vars->set(std::string(key), std::move(converted.value()));
  }
  return program_.render(std::move(vars), limits_);
}

std::vector<token_id> encode_chat(const tokenizer& tok, const std::string& text) {
  return tok.encode(text, /*add_special_tokens=*/false);
}

}  // namespace pagedserve
