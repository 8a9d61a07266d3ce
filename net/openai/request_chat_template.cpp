#include "net/openai/request_chat_template.h"

#include <string>

namespace pagedserve::net {

api_error untrusted_chat_template(const std::string& param) {
  return bad_request(
      "Chat template is passed with request, but this server does not trust request chat "
      "templates (start it with trust_request_chat_template: true, vLLM's "
      "--trust-request-chat-template). Refused request with untrusted chat template.",
      param);
}

std::optional<chat_template> read_request_chat_template(body_reader& reader,
                                                        const model_context& model) {
  const boost::json::value* source = reader.find("chat_template");
  if (source == nullptr || reader.failed()) return std::nullopt;
  if (!source->is_string()) {
    reader.fail(invalid_type("chat_template", "a string", *source));
    return std::nullopt;
  }
  if (!model.trust_request_chat_template) {
    reader.fail(untrusted_chat_template("chat_template"));
    return std::nullopt;
  }
  // vLLM renders with `request.chat_template or <the server's>`: "" is the server's.
  if (source->get_string().empty()) return std::nullopt;
  if (source->get_string().size() > k_max_request_chat_template_bytes) {
    reader.fail(bad_request("'chat_template' is longer than the " +
                                std::to_string(k_max_request_chat_template_bytes) +
                                " bytes this server accepts.",
                            "chat_template"));
    return std::nullopt;
  }
  auto compiled = chat_template::compile(std::string(source->get_string()));
  if (!compiled) {
    reader.fail(bad_request("'chat_template' does not compile: " + compiled.err().message,
                            "chat_template"));
    return std::nullopt;
  }
  if (model.template_ != nullptr) compiled->set_limits(model.template_->limits());
  return std::move(compiled.value());
}

}  // namespace pagedserve::net
