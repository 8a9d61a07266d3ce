// json_schema_to_gbnf: each keyword's grammar, compiled with compile_gbnf and run over a
// byte vocabulary, must accept the compact JSON the schema allows and reject the rest.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/grammar_matcher.h"
#include "runtime/grammar/schema_grammar.h"
#include "tests/runtime/grammar/byte_vocabulary.h"

namespace pagedserve::grammar {
namespace {

using testing::byte_vocabulary;

// A schema's grammar, compiled; the test fails when either step does.
std::shared_ptr<const compiled_grammar> schema_grammar(std::string_view schema) {
  auto gbnf = json_schema_to_gbnf(schema);
  EXPECT_TRUE(gbnf.ok()) << (gbnf.ok() ? "" : gbnf.err().message);
  if (!gbnf.ok()) return nullptr;
  auto compiled = compile_gbnf(*gbnf, byte_vocabulary());
  EXPECT_TRUE(compiled.ok()) << (compiled.ok() ? "" : compiled.err().message) << "\n" << *gbnf;
  return compiled.ok() ? *compiled : nullptr;
}

bool matches(const std::shared_ptr<const compiled_grammar>& grammar, std::string_view text) {
  if (grammar == nullptr) return false;
  grammar_matcher matcher(grammar);
  return matcher.accept_bytes(text) && matcher.is_accepting();
}

void expect_language(std::string_view schema, const std::vector<std::string>& accepted,
                     const std::vector<std::string>& rejected) {
  auto grammar = schema_grammar(schema);
  for (const auto& text : accepted) EXPECT_TRUE(matches(grammar, text)) << schema << " " << text;
  for (const auto& text : rejected) EXPECT_FALSE(matches(grammar, text)) << schema << " " << text;
}

error schema_error(std::string_view schema) {
  auto gbnf = json_schema_to_gbnf(schema);
  EXPECT_FALSE(gbnf.ok()) << schema;
  return gbnf.ok() ? error{} : gbnf.err();
}

TEST(JsonSchemaGrammar, TinySchemasReadAsExpected) {
  EXPECT_EQ(*json_schema_to_gbnf(R"({"type":"boolean"})"),
            "root ::= json-boolean\njson-boolean ::= \"true\" | \"false\"\n");
  EXPECT_EQ(*json_schema_to_gbnf(R"({"const":"a\"b"})"), "root ::= \"\\\"a\\\\\\\"b\\\"\"\n");
  EXPECT_EQ(*json_schema_to_gbnf(R"({"type":"integer","minimum":0,"maximum":100})"),
            "root ::= root-1\nroot-1 ::= [0-9] | [1-9] [0-9] | \"100\"\n");
  EXPECT_EQ(*json_schema_to_gbnf(R"({"type":"object","properties":{"a":{"type":"null"}},
                                     "required":["a"]})"),
            "root ::= root-1\nroot-1 ::= \"{\" ( \"\\\"a\\\":\" json-null ) \"}\"\n"
            "json-null ::= \"null\"\n");
}

TEST(JsonSchemaGrammar, RequiredPropertiesAppearInDeclarationOrder) {
  expect_language(R"({"type":"object","properties":{"a":{"type":"integer"},
                      "b":{"type":"string"},"c":{"type":"boolean"}},"required":["b"]})",
                  {R"({"b":"x"})", R"({"a":1,"b":"x"})", R"({"b":"x","c":true})",
                   R"({"a":1,"b":"","c":false})"},
                  {"{}", R"({"a":1})", R"({"b":"x","a":1})", R"({"b":"x","d":1})", R"({"b":"x",})",
                   R"({ "b":"x"})", R"({"b":1})", R"({"a":1,"c":true})"});
}

TEST(JsonSchemaGrammar, AllOptionalPropertiesMayAllBeLeftOut) {
  expect_language(R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},
                      "c":{"type":"integer"}}})",
                  {"{}", R"({"a":1})", R"({"b":2})", R"({"c":3})", R"({"a":1,"c":3})",
                   R"({"a":1,"b":2,"c":3})"},
                  {R"({"b":2,"a":1})", "{,}", R"({,"a":1})", R"({"a":1,})", R"({"d":1})"});
}

TEST(JsonSchemaGrammar, RequiredBetweenOptionals) {
  expect_language(R"({"properties":{"a":{"type":"null"},"b":{"type":"null"},"c":{"type":"null"},
                      "d":{"type":"null"}},"required":["c"]})",
                  {R"({"c":null})", R"({"a":null,"c":null})", R"({"b":null,"c":null,"d":null})",
                   R"({"a":null,"b":null,"c":null,"d":null})"},
                  {R"({"a":null})", R"({"a":null,"b":null,"d":null})", R"({"c":null,"a":null})"});
}

TEST(JsonSchemaGrammar, AdditionalProperties) {
  expect_language(R"({"type":"object","additionalProperties":{"type":"integer"}})",
                  {"{}", R"({"x":1})", R"({"x":1,"y":-2})"}, {R"({"x":"s"})", R"({"x":1,})"});
  expect_language(R"({"properties":{"a":{"type":"integer"}},"additionalProperties":true})",
                  {"{}", R"({"a":1})", R"({"a":1,"z":[1,{}]})", R"({"z":null})"},
                  {R"({"a":1,})", R"({"z"})"});
  expect_language(R"({"properties":{"a":{"type":"integer"}},"additionalProperties":false})",
                  {"{}", R"({"a":1})"}, {R"({"a":1,"z":2})"});
  expect_language(R"({"type":"object"})", {"{}", R"({"k":[true,{"n":null}]})"}, {"[]"});
}

TEST(JsonSchemaGrammar, IntegerBoundsAreExact) {
  expect_language(R"({"type":"integer","minimum":0,"maximum":100})", {"0", "7", "10", "99", "100"},
                  {"-5", "101", "007", "1000", "-0", "1.5", ""});
  expect_language(R"({"type":"integer","minimum":-20,"maximum":-3})", {"-3", "-10", "-20"},
                  {"-2", "-21", "3", "-0", "0"});
  expect_language(R"({"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10})", {"1", "9"},
                  {"0", "10"});
  expect_language(R"({"type":"integer","minimum":5,"exclusiveMinimum":true})", {"6", "60"},
                  {"5", "4"});
}

TEST(JsonSchemaGrammar, IntegerRangeAgreesWithArithmetic) {
  auto between = schema_grammar(R"({"type":"integer","minimum":-37,"maximum":1789})");
  auto above = schema_grammar(R"({"type":"integer","minimum":15})");
  auto below = schema_grammar(R"({"type":"integer","maximum":-15})");
  for (int n = -2000; n <= 2000; ++n) {
    std::string text = std::to_string(n);
    EXPECT_EQ(matches(between, text), n >= -37 && n <= 1789) << text;
    EXPECT_EQ(matches(above, text), n >= 15) << text;
    EXPECT_EQ(matches(below, text), n <= -15) << text;
  }
  EXPECT_TRUE(matches(above, "123456789012345678901234567890"));
}

TEST(JsonSchemaGrammar, NumbersWithWholeBounds) {
  expect_language(R"({"type":"number","minimum":0,"maximum":1})",
                  {"0", "0.5", "1", "1.0", "1.00", "0.999"}, {"1.5", "-0.1", "2", "1e0", "1.01"});
  expect_language(R"({"type":"number","exclusiveMinimum":0})", {"0.001", "5", "12.5"},
                  {"0", "0.0", "-1"});
  expect_language(R"({"type":"number","minimum":-2,"exclusiveMaximum":0})",
                  {"-2", "-2.0", "-1.5", "-0.5"}, {"0", "-2.5", "1", "-0"});
  expect_language(R"({"type":"number"})", {"-1.5e+10", "0", "0.25", "1E5"},
                  {"01", "1.", ".5", "+1", "-"});
}

TEST(JsonSchemaGrammar, Strings) {
  expect_language(R"({"type":"string"})",
                  {R"("")", R"("a\n\u00e9")", R"("\"\\\/")", "\"\xC3\xA9\""},
                  {"\"a\nb\"", R"("\x")", R"("abc)", R"(abc)", R"("\u12")"});
  expect_language(R"({"type":"string","minLength":2,"maxLength":3})",
                  {R"("ab")", R"("abc")", R"("a\"")", "\"\xE6\x97\xA5\xE6\x9C\xAC\""},
                  {R"("a")", R"("abcd")", R"("")"});
}

TEST(JsonSchemaGrammar, PatternIsMatchedInsideTheQuotes) {
  expect_language(R"({"type":"string","pattern":"^[a-z]+-[0-9]{2}$"})", {R"("abc-12")"},
                  {R"("abc-1")", R"("ABC-12")", R"(abc-12)"});
  // The quote the pattern allows is written escaped, as JSON requires.
  expect_language(R"({"type":"string","pattern":"a\"b\\\\c"})", {R"("a\"b\\c")"}, {R"("a"b\c")"});
  expect_language(R"({"type":"string","pattern":"[^a]"})", {R"("b")", R"("\"")", R"("\n")"},
                  {R"("a")", "\"\n\""});
}

TEST(JsonSchemaGrammar, Formats) {
  // The date pattern checks each field's range, not the calendar: 2024-02-30 passes.
  expect_language(R"({"type":"string","format":"date"})", {R"("2024-01-31")", R"("2024-02-30")"},
                  {R"("2024-13-01")", R"("2024-1-01")", R"("2024-01-32")"});
  expect_language(R"({"type":"string","format":"time"})",
                  {R"("23:59:59Z")", R"("00:00:00.5+02:00")"}, {R"("24:00:00Z")", R"("12:00:00")"});
  expect_language(R"({"type":"string","format":"date-time"})",
                  {R"("2024-01-31T12:30:00Z")", R"("2024-01-31T12:30:00.123-05:00")"},
                  {R"("2024-01-31 12:30:00Z")", R"("2024-01-31T12:30Z")"});
  expect_language(R"({"type":"string","format":"uuid"})",
                  {R"("123e4567-e89b-12d3-a456-426614174000")"},
                  {R"("123e4567-e89b-12d3-a456")", R"("123e4567e89b12d3a456426614174000")"});
  expect_language(R"({"type":"string","format":"email"})",
                  {R"("a.b@example.com")", R"("x+y@mail.example.org")"},
                  {R"("a@b")", R"("@x.com")", R"("a b@x.com")"});
}

TEST(JsonSchemaGrammar, EnumAndConst) {
  expect_language(R"({"enum":["red","green",1,null,{"a":[1.5,true]}]})",
                  {R"("red")", "1", "null", R"({"a":[1.5,true]})"},
                  {R"("blue")", R"("1")", "2", R"({"a":[1.5]})"});
  expect_language(R"({"const":{"a":[1,2]}})", {R"({"a":[1,2]})"}, {R"({"a":[1]})", "{}"});
}

TEST(JsonSchemaGrammar, AlternativesAndNullable) {
  expect_language(R"({"anyOf":[{"type":"string"},{"type":"integer"}],"title":"t"})",
                  {R"("x")", "5"}, {"true", "5.5"});
  expect_language(R"({"oneOf":[{"const":1},{"const":2}]})", {"1", "2"}, {"3"});
  expect_language(R"({"type":["string","null"]})", {R"("x")", "null"}, {"1"});
  expect_language(R"({"type":"integer","nullable":true})", {"3", "null"}, {R"("3")"});
}

TEST(JsonSchemaGrammar, AllOfMergesObjects) {
  expect_language(R"({"$defs":{"a":{"type":"object","properties":{"a":{"type":"integer"}},
                      "required":["a"]}},"allOf":[{"$ref":"#/$defs/a"},
                      {"properties":{"b":{"type":"integer"}},"required":["b"]}]})",
                  {R"({"a":1,"b":2})"}, {R"({"b":2})", R"({"a":1})", R"({"b":2,"a":1})"});
  expect_language(R"({"allOf":[{"type":"string"}],"description":"d"})", {R"("s")"}, {"1"});
}

TEST(JsonSchemaGrammar, RecursiveReferencesMakeRecursiveRules) {
  expect_language(
      R"({"$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},
                      "children":{"type":"array","items":{"$ref":"#/$defs/node"}}},
                      "required":["value","children"]}},"$ref":"#/$defs/node"})",
      {R"({"value":1,"children":[]})",
       R"({"value":1,"children":[{"value":2,"children":[{"value":3,"children":[]}]}]})"},
      {R"({"value":1,"children":[{"value":2}]})", R"({"value":1})"});
  expect_language(R"({"type":"object","properties":{"next":{"$ref":"#"}}})",
                  {"{}", R"({"next":{"next":{}}})"}, {R"({"next":1})"});
  expect_language(
      R"({"definitions":{"id":{"type":"integer"}},"items":{"$ref":"#/definitions/id"}})", {"[1,2]"},
      {R"(["1"])"});
}

TEST(JsonSchemaGrammar, Arrays) {
  expect_language(R"({"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3})",
                  {"[1]", "[1,2,3]"}, {"[]", "[1,2,3,4]", R"([1,"a"])", "[1,]", "[1, 2]"});
  expect_language(R"({"type":"array"})", {"[]", R"([1,"a",[null]])"}, {"[,]"});
  expect_language(R"({"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false})",
                  {R"(["a",1])", R"(["a"])", "[]"}, {R"(["a",1,2])", "[1]"});
  expect_language(R"({"prefixItems":[{"type":"string"},{"type":"integer"}],"minItems":2,
                      "items":{"type":"boolean"}})",
                  {R"(["a",1])", R"(["a",1,true,false])"}, {R"(["a"])", R"(["a",1,2])"});
  expect_language(R"({"type":"array","maxItems":0})", {"[]"}, {"[1]"});
}

TEST(JsonSchemaGrammar, AnyValueSchemas) {
  for (std::string_view schema : {"{}", "true", R"({"title":"anything"})"}) {
    expect_language(schema, {R"({"x":[1,{"y":null}]})", R"("s")", "1", "false"},
                    {R"({"x" : 1})", "[1 ]", "nul"});
  }
}

TEST(JsonSchemaGrammar, UnsupportedKeywordsAreNamed) {
  for (std::string_view keyword : {"patternProperties", "uniqueItems", "contains", "not",
                                   "minProperties", "if", "dependentRequired"}) {
    std::string schema = R"({"type":"object",")";
    schema.append(keyword).append(R"(":{}})");
    std::string quoted = "'";
    quoted.append(keyword).append("'");
    auto err = schema_error(schema);
    EXPECT_EQ(err.code, error_code::unsupported);
    EXPECT_NE(err.message.find(quoted), std::string::npos) << err.message;
  }
  auto fraction = schema_error(R"({"type":"number","maximum":1.5})");
  EXPECT_EQ(fraction.code, error_code::unsupported);
  EXPECT_NE(fraction.message.find("maximum"), std::string::npos);
  EXPECT_EQ(schema_error(R"({"$ref":"http://x/y.json"})").code, error_code::unsupported);
  EXPECT_EQ(schema_error(R"({"type":"string","pattern":"(a)\\1"})").code, error_code::unsupported);
}

TEST(JsonSchemaGrammar, MalformedSchemasAreInvalid) {
  for (std::string_view schema :
       {"{", "[]", R"({"type":"strin"})", R"({"$ref":"#/$defs/missing"})",
        R"({"type":"array","minItems":3,"maxItems":2})", R"({"type":"integer","minimum":5,
        "maximum":4})",
        R"({"enum":[]})", R"({"required":"a"})", "false", R"({"type":"string","pattern":"(ab"})"}) {
    EXPECT_EQ(schema_error(schema).code, error_code::invalid_argument) << schema;
  }
  EXPECT_TRUE(json_schema_to_gbnf(R"({"type":"string","title":"t","description":"d",
      "$schema":"x","$id":"y","$comment":"c","examples":["e"],"default":"v","deprecated":false,
      "readOnly":true,"writeOnly":false,"strict":true})")
                  .ok());
}

std::string nested_arrays(int depth) {
  std::string schema;
  for (int i = 0; i < depth; ++i) schema += R"({"type":"array","items":)";
  schema += R"({"type":"integer"})";
  for (int i = 0; i < depth; ++i) schema += "}";
  return schema;
}

TEST(JsonSchemaGrammar, DeepNestingIsBounded) {
  expect_language(nested_arrays(100), {std::string(100, '[') + "7" + std::string(100, ']')},
                  {std::string(99, '[') + "7" + std::string(99, ']')});
  for (int depth : {129, 1000, 100000}) {
    EXPECT_EQ(schema_error(nested_arrays(depth)).code, error_code::invalid_argument) << depth;
  }
  std::string deep_properties;
  for (int i = 0; i < 1000; ++i) deep_properties += R"({"properties":{"a":)";
  deep_properties += "{}" + std::string(2000, '}');
  EXPECT_EQ(schema_error(deep_properties).code, error_code::invalid_argument);
}

TEST(JsonSchemaGrammar, TenThousandValueEnumCompiles) {
  std::string schema = R"({"enum":[)";
  for (int i = 0; i < 10'000; ++i) {
    schema.append(i == 0 ? "\"value" : ",\"value").append(std::to_string(i)).append("\"");
  }
  schema += "]}";
  expect_language(schema, {R"("value0")", R"("value9999")", R"("value512")"},
                  {R"("value10000")", R"("value")", R"("value01")"});
}

TEST(JsonObjectGrammar, AnyObject) {
  auto compiled = compile_gbnf(json_object_gbnf(), byte_vocabulary());
  ASSERT_TRUE(compiled.ok()) << compiled.err().message;
  for (std::string_view text : {"{}", R"({"a":1,"b":[true,{"c":null}],"d":"\u00e9"})"}) {
    EXPECT_TRUE(matches(*compiled, text)) << text;
  }
  for (std::string_view text : {"[]", R"({"a"})", R"({"a":1,})", R"({"a": 1})", "1"}) {
    EXPECT_FALSE(matches(*compiled, text)) << text;
  }
}

}  // namespace
}  // namespace pagedserve::grammar
