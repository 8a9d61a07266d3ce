// Every way a request asks for structured outputs (OpenAI's response_format, vLLM's
// structured_outputs and legacy guided_* fields, SGLang's names) reaches
// sampling.structured_outputs as the same constraint; "text" asks for none.

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using kind = structured_outputs_params::kind;
using testing::cat;
using testing::parse_ok;
constexpr api_kind C = api_kind::completion;
constexpr api_kind H = api_kind::chat_completion;

std::optional<structured_outputs_params> constraint_of(api_kind k, const std::string& fields) {
  const std::string head =
      k == C ? R"({"prompt":"Hi",)" : R"({"messages":[{"role":"user","content":"Hi"}],)";
  const api_request r = parse_ok(k, cat({head, fields, "}"}));
  if (r.prompts.empty()) return std::nullopt;
  return r.prompts[0].request.sampling.structured_outputs;
}

TEST(structured_output_fields, ResponseFormatJsonSchemaCarriesTheSchemaText) {
  for (const api_kind k : {C, H}) {
    const auto c = constraint_of(
        k, R"("response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,)"
           R"("schema":{"type":"object","properties":{"a":{"type":"integer"}}}}})");
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->type, kind::json);
    EXPECT_EQ(boost::json::parse(c->spec),
              boost::json::parse(R"({"type":"object","properties":{"a":{"type":"integer"}}})"));
  }
}

TEST(structured_output_fields, EachSpellingGivesItsKind) {
  struct spelling {
    std::string fields;
    kind type;
    std::string spec;
  };
  const std::vector<spelling> spellings = {
      {R"("response_format":{"type":"json_object"})", kind::json_object, ""},
      {R"("structured_outputs":{"json_object":true})", kind::json_object, ""},
      {R"("structured_outputs":{"json":"{\"type\":\"string\"}"})", kind::json,
       R"({"type":"string"})"},
      {R"("structured_outputs":{"regex":"[a-z]+"})", kind::regex, "[a-z]+"},
      {R"("structured_outputs":{"grammar":"root ::= \"a\""})", kind::grammar, R"(root ::= "a")"},
      {R"("guided_json":{"type":"string"})", kind::json, R"({"type":"string"})"},
      {R"("guided_regex":"\\d+","guided_decoding_backend":"xgrammar")", kind::regex, R"(\d+)"},
      {R"("guided_grammar":"root ::= \"b\"")", kind::grammar, R"(root ::= "b")"},
      {R"("json_schema":"{\"type\":\"null\"}")", kind::json, R"({"type":"null"})"},
      {R"("regex":"x?")", kind::regex, "x?"},
      {R"("ebnf":"root ::= \"c\"")", kind::grammar, R"(root ::= "c")"},
  };
  for (const spelling& s : spellings) {
    for (const api_kind k : {C, H}) {
      SCOPED_TRACE(s.fields);
      const auto c = constraint_of(k, s.fields);
      ASSERT_TRUE(c.has_value());
      EXPECT_EQ(c->type, s.type);
      EXPECT_EQ(c->spec, s.spec);
    }
  }
}

TEST(structured_output_fields, ChoicesKeepTheirOrder) {
  for (const char* fields : {R"("guided_choice":["yes","no","maybe"])",
                             R"("structured_outputs":{"choice":["yes","no","maybe"]})"}) {
    const auto c = constraint_of(C, fields);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->type, kind::choice);
    EXPECT_EQ(c->choice, (std::vector<std::string>{"yes", "no", "maybe"}));
  }
}

TEST(structured_output_fields, TextAndNullAskForNothing) {
  EXPECT_FALSE(constraint_of(H, R"("response_format":{"type":"text"})").has_value());
  EXPECT_FALSE(constraint_of(C, R"("guided_json":null,"structured_outputs":null)").has_value());
  EXPECT_FALSE(constraint_of(
                   C, R"("structured_outputs":{"json_object":false,"disable_any_whitespace":true})")
                   .has_value());
}

}  // namespace
}  // namespace pagedserve::net
