#include "net/openai/served_chat_template.h"

#include "runtime/chat/load_chat_template.h"

namespace pagedserve::net {

result<std::optional<chat_template>> load_chat_template_key(const std::string& value) {
  if (value.empty()) return std::optional<chat_template>();
  auto source = load_chat_template(value);
  if (!source) return make_error(source.err().code, "chat_template: " + source.err().message);
  auto compiled = chat_template::compile(std::move(source.value()));
  if (!compiled) {
    return make_error(error_code::invalid_argument,
                      "chat_template: the template does not compile: " + compiled.err().message);
  }
  return std::optional<chat_template>(std::move(compiled.value()));
}

}  // namespace pagedserve::net
