// The chat template fields of a chat body and of /tokenize: a per-request chat_template
// (refused unless the server trusts request templates, as vLLM >= 0.11), the
// continue_final_message / add_generation_prompt rules of vLLM's protocol.py and
// transformers, documents, and hostile values of each. Errors are 400s naming the field.

#include <string>

#include <gtest/gtest.h>

#include "net/openai/request_chat_template.h"
#include "net/openai/tokenize_request.h"
#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using testing::cat;
using testing::llama3;
using testing::parse;
using testing::parse_ok;

constexpr api_kind H = api_kind::chat_completion;
// The start of a body: each use adds its own fields and the closing brace.
constexpr const char* hi = R"({"messages":[{"role":"user","content":"Hi"}])";
// "Hello world" in goldens/tokenizers/llama3.json.
const std::vector<token_id> hello_world_ids = {9906, 1917};

model_context trusting() {
  model_context model = llama3().context;
  model.trust_request_chat_template = true;
  return model;
}

api_error error_of(const std::string& body, const model_context& model = llama3().context) {
  parse_outcome out = parse(H, body, model);
  if (auto* err = std::get_if<api_error>(&out)) return *err;
  ADD_FAILURE() << "accepted: " << body;
  return {};
}

TEST(chat_template_fields, AnUntrustedRequestTemplateIsRefused) {
  const api_error err = error_of(cat({hi, R"(,"chat_template":"{{ 'x' }"})"}));
  EXPECT_EQ(err.status, 400U);
  EXPECT_EQ(err.param, "chat_template");
  EXPECT_NE(err.message.find("does not trust request chat templates"), std::string::npos);
  // vLLM also looks for one inside chat_template_kwargs.
  EXPECT_EQ(error_of(cat({hi, R"(,"chat_template_kwargs":{"chat_template":"x"}})"})).param,
            "chat_template_kwargs");
  // null is "not given": the model's template renders.
  EXPECT_EQ(parse_ok(H, cat({hi, R"(,"chat_template":null})"})).prompts.size(), 1U);
}

TEST(chat_template_fields, ATrustedRequestTemplateRendersThisRequest) {
  const api_request r = parse_ok(H,
                                 R"({"messages":[{"role":"user","content":" world"}],
          "chat_template":"Hello{% for m in messages %}{{ m.content }}{% endfor %}"})",
                                 trusting());
  EXPECT_EQ(r.prompts[0].request.prompt_token_ids, hello_world_ids);
  // "" is the model's template, as vLLM's `request.chat_template or self.chat_template`.
  const api_request empty = parse_ok(H, cat({hi, R"(,"chat_template":""})"}), trusting());
  EXPECT_EQ(empty.prompts[0].request.prompt_token_ids,
            parse_ok(H, cat({hi, "}"})).prompts[0].request.prompt_token_ids);
  // The model's template is untouched for the next request.
  const api_request plain = parse_ok(H, cat({hi, "}"}), trusting());
  EXPECT_NE(plain.prompts[0].request.prompt_token_ids, hello_world_ids);
}

TEST(chat_template_fields, ATrustedTemplateServesAModelWithoutOne) {
  model_context bare = trusting();
  bare.template_ = nullptr;
  EXPECT_EQ(error_of(cat({hi, "}"}), bare).param, "messages");
  const api_request r = parse_ok(
      H,
      R"({"messages":[{"role":"user","content":"Hello world"}],"chat_template":"{{ messages[0].content }}"})",
      bare);
  EXPECT_EQ(r.prompts[0].request.prompt_token_ids, hello_world_ids);
}

TEST(chat_template_fields, BadRequestTemplatesAreA400OnTheField) {
  const model_context model = trusting();
  for (const std::string& bad : {std::string(R"("{% for %}")"), std::string("7"),
                                 std::string(R"(["{{ x }}"])"), std::string(R"({"t":"x"})")}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(error_of(cat({hi, R"(,"chat_template":)", bad, "}"}), model).param, "chat_template");
  }
  const std::string too_long(k_max_request_chat_template_bytes + 1, 'x');
  const api_error err = error_of(cat({hi, R"(,"chat_template":")", too_long, "\"}"}), model);
  EXPECT_EQ(err.param, "chat_template");
  EXPECT_NE(err.message.find("longer than"), std::string::npos);
  // Even trusted, the kwargs are no place for a template (vLLM: unexpected kwargs).
  EXPECT_EQ(error_of(cat({hi, R"(,"chat_template_kwargs":{"chat_template":"x"}})"}), model).param,
            "chat_template_kwargs");
}

TEST(chat_template_fields, ARequestTemplateThatRaisesIsA400OnMessages) {
  EXPECT_EQ(
      error_of(cat({hi, R"(,"chat_template":"{{ raise_exception('no') }}"})"}), trusting()).param,
      "messages");
}

TEST(chat_template_fields, ContinueFinalMessageNeedsTheGenerationPromptOff) {
  const std::string both = R"({"messages":[{"role":"assistant","content":"x"}],
                               "continue_final_message":true,"add_generation_prompt":true})";
  const api_error err = error_of(both);
  EXPECT_EQ(err.param, "continue_final_message");
  EXPECT_EQ(err.message,
            "Cannot set both `continue_final_message` and `add_generation_prompt` to True.");
  // add_generation_prompt defaults to true: transformers refuses the pair at rendering.
  EXPECT_EQ(error_of(R"({"messages":[{"role":"assistant","content":"x"}],
                         "continue_final_message":true})")
                .param,
            "continue_final_message");
  EXPECT_EQ(parse_ok(H, R"({"messages":[{"role":"assistant","content":"x"}],
                           "continue_final_message":true,"add_generation_prompt":false})")
                .prompts.size(),
            1U);
  EXPECT_EQ(parse_ok(H, cat({hi, R"(,"continue_final_message":false})"})).prompts.size(), 1U);
  EXPECT_EQ(error_of(cat({hi, R"(,"continue_final_message":"yes"})"})).param,
            "continue_final_message");
  EXPECT_EQ(
      error_of(cat({hi, R"(,"chat_template_kwargs":{"continue_final_message":true}})"})).param,
      "chat_template_kwargs");
}

TEST(chat_template_fields, DocumentsMustBeObjectsOfStrings) {
  EXPECT_EQ(error_of(cat({hi, R"(,"documents":{"text":"d"}})"})).param, "documents");
  EXPECT_EQ(error_of(cat({hi, R"(,"documents":"d"})"})).param, "documents");
  EXPECT_EQ(error_of(cat({hi, R"(,"documents":[{"text":"d"},"e"]})"})).param, "documents[1]");
  EXPECT_EQ(error_of(cat({hi, R"(,"documents":[{"title":7}]})"})).param, "documents[0].title");
  EXPECT_EQ(error_of(cat({hi, R"(,"documents":[{"text":{"nested":"x"}}]})"})).param,
            "documents[0].text");
  EXPECT_EQ(parse_ok(H, cat({hi, R"(,"documents":[]})"})).prompts.size(), 1U);
  EXPECT_EQ(parse_ok(H, cat({hi, R"(,"documents":null})"})).prompts.size(), 1U);
}

TEST(chat_template_fields, MalformedToolCallsNameTheCall) {
  const auto with_calls = [](const std::string& calls) {
    return cat({R"({"messages":[{"role":"user","content":"Hi"},{"role":"assistant","tool_calls":)",
                calls, "}]}"});
  };
  EXPECT_EQ(error_of(with_calls(R"("call")")).param, "messages[1].tool_calls");
  EXPECT_EQ(error_of(with_calls(R"([7])")).param, "messages[1].tool_calls[0]");
  EXPECT_EQ(error_of(with_calls(R"([{"type":"function"}])")).param,
            "messages[1].tool_calls[0].function");
  EXPECT_EQ(
      error_of(with_calls(R"([{"function":{"name":"f"}},{"function":{"arguments":"{}"}}])")).param,
      "messages[1].tool_calls[1].function.name");
}

std::variant<boost::json::object, api_error> tokenize_body(const std::string& body,
                                                           const model_context& model) {
  return tokenize(boost::json::parse(body), model);
}

TEST(chat_template_fields, TokenizeTakesTheSameOptionsAsChat) {
  const model_context model = trusting();
  const std::string body = R"({"messages":[{"role":"user","content":"Hi"},
                                           {"role":"assistant","content":"Hello there"}],
                               "add_generation_prompt":false,"continue_final_message":true,
                               "documents":[{"text":"d"}],
                               "chat_template":"{{ documents[0].text }}{% for m in messages %}{{ m.content }}{% endfor %}"})";
  const auto tokenized = tokenize_body(body, model);
  ASSERT_TRUE(std::holds_alternative<boost::json::object>(tokenized))
      << std::get<api_error>(tokenized).message;
  const api_request chat = parse_ok(H, body, model);
  EXPECT_EQ(boost::json::value_to<std::vector<token_id>>(
                std::get<boost::json::object>(tokenized).at("tokens")),
            chat.prompts[0].request.prompt_token_ids);
  EXPECT_EQ(chat.prompts[0].request.prompt_token_ids, encode_chat(*model.tok, "dHiHello there"));

  const auto untrusted = tokenize_body(body, llama3().context);
  ASSERT_TRUE(std::holds_alternative<api_error>(untrusted));
  EXPECT_EQ(std::get<api_error>(untrusted).param, "chat_template");
  const auto both = tokenize_body(
      R"({"messages":[{"role":"user","content":"Hi"}],"continue_final_message":true})", model);
  ASSERT_TRUE(std::holds_alternative<api_error>(both));
  EXPECT_EQ(std::get<api_error>(both).param, "continue_final_message");
}

}  // namespace
}  // namespace pagedserve::net
