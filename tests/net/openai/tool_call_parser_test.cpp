// The tool-call parsers on hand-written model texts, each expectation derived by reading the
// format. Every text is also streamed in pieces of every size (and cut at every offset)
// and must give what the non-streaming parser gives.

#include "net/openai/tool_call_parser.h"

#include <gtest/gtest.h>

#include "tests/net/openai/tool_call_test_support.h"

namespace pagedserve::net {
namespace {

using testing::expect_streaming_agrees;

struct call {
  const char* name;
  const char* arguments;
};

// Non-streamed: exactly this content and these calls; streamed: the same.
void expect_calls(tool_call_format format, std::string_view text, std::string_view content,
                  std::vector<call> calls, std::string_view named = {}) {
  SCOPED_TRACE(std::string(text));
  const extracted_tool_calls got = extract_tool_calls(format, text, named);
  EXPECT_EQ(got.content, content);
  ASSERT_EQ(got.calls.size(), calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(got.calls[i].name, calls[i].name);
    EXPECT_EQ(got.calls[i].arguments, calls[i].arguments);
  }
  expect_streaming_agrees(format, text, named);
}

void expect_content(tool_call_format format, std::string_view text, std::string_view named = {}) {
  expect_calls(format, text, text, {}, named);
}

TEST(tool_call_parser, ParserNames) {
  EXPECT_EQ(parse_tool_call_parser("hermes"), tool_call_format::hermes);
  EXPECT_EQ(parse_tool_call_parser("llama3_json"), tool_call_format::llama3_json);
  EXPECT_EQ(parse_tool_call_parser("mistral"), tool_call_format::mistral);
  EXPECT_EQ(parse_tool_call_parser("pythonic"), tool_call_format::pythonic);
  EXPECT_EQ(parse_tool_call_parser("json_array"), std::nullopt);
  EXPECT_EQ(parse_tool_call_parser("Hermes"), std::nullopt);
}

// --- hermes -------------------------------------------------------------------------------

TEST(tool_call_parser, HermesKeepsTheTextOutsideTheBlocksAsContent) {
  expect_calls(tool_call_format::hermes,
               "Sure.<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> and "
               "<tool_call>\n{\"name\": \"b\", \"arguments\": {\"x\": 1}}\n</tool_call>\nDone.",
               "Sure. and \nDone.", {{"a", "{}"}, {"b", "{\"x\":1}"}});
}

TEST(tool_call_parser, HermesDropsWhitespaceBetweenAndAfterBlocks) {
  expect_calls(tool_call_format::hermes,
               "Two calls:\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>\n \n"
               "<tool_call>\n{\"name\": \"b\", \"arguments\": {}}\n</tool_call>\n",
               "Two calls:\n", {{"a", "{}"}, {"b", "{}"}});
  // Cut mid-way through the next opening tag, then text that is not one: content after all.
  expect_calls(tool_call_format::hermes,
               "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_ca",
               "\n<tool_ca", {{"a", "{}"}});
}

// Compact: whitespace goes, strings are re-escaped, numbers stay as written.
TEST(tool_call_parser, ArgumentsAreReserializedCompact) {
  expect_calls(
      tool_call_format::hermes,
      "<tool_call>{ \"name\" : \"f\" , \"arguments\" : { \"a\" : [ 1 , 2.50 , -0 , 1e2 ] ,"
      " \"s\" : \"x\\u00e9\\n\\/\\ud83d\\ude00\\\"\" , \"t\" : true , \"u\" : false , "
      "\"n\" : null , \"o\" : { } , \"e\" : [ ] , \"k\\u0041\" : \"\\u0001é\" } }</tool_call>",
      "",
      {{"f",
        "{\"a\":[1,2.50,-0,1e2],\"s\":\"xé\\n/\xF0\x9F\x98\x80\\\"\",\"t\":true,"
        "\"u\":false,\"n\":null,\"o\":{},\"e\":[],\"kA\":\"\\u0001é\"}"}});
}

TEST(tool_call_parser, HermesAcceptsParametersAndAMissingClosingTag) {
  expect_calls(tool_call_format::hermes,
               "<tool_call>{\"name\": \"f\", \"parameters\": {\"a\": \"b\"}}", "",
               {{"f", "{\"a\":\"b\"}"}});
}

TEST(tool_call_parser, HermesWithoutATagIsContent) {
  expect_content(tool_call_format::hermes, "No tools needed. <tool_cal <b>bold</b> <");
  expect_content(tool_call_format::hermes, "");
}

TEST(tool_call_parser, MalformedHermesBlocksAreContent) {
  // Unterminated before the arguments, invalid JSON, a name that is not a string, the name
  // not first, arguments that are not an object, an empty name.
  expect_content(tool_call_format::hermes, "Hi <tool_call>\n{\"name\": \"get_weather\", \"argu");
  expect_content(tool_call_format::hermes,
                 "<tool_call>{name: \"f\", \"arguments\": {}}</tool_call>");
  expect_content(tool_call_format::hermes,
                 "<tool_call>{\"name\": 3, \"arguments\": {}}</tool_call> after");
  expect_content(tool_call_format::hermes,
                 "<tool_call>{\"arguments\": {}, \"name\": \"f\"}</tool_call>");
  expect_content(tool_call_format::hermes,
                 "<tool_call>{\"name\": \"f\", \"arguments\": \"{}\"}</tool_call>");
  expect_content(tool_call_format::hermes,
                 "<tool_call>{\"name\": \"\", \"arguments\": {}}</tool_call>");
  expect_content(tool_call_format::hermes, "<tool_call><tool_call></tool_call>");
}

TEST(tool_call_parser, AMalformedBlockDoesNotSpoilTheOthers) {
  expect_calls(tool_call_format::hermes,
               "<tool_call>{\"name\": 1}</tool_call>\n<tool_call>{\"name\": \"g\", \"arguments\": "
               "{\"q\": [true]}}</tool_call>",
               "<tool_call>{\"name\": 1}</tool_call>\n", {{"g", "{\"q\":[true]}"}});
}

// A call whose name is out can no longer be taken back from a stream. Non-streamed, its text
// is content; streamed, it stays as sent and the text after the break is content.
TEST(tool_call_parser, ACallBrokenAfterItsNameIsContentOnlyWhenNotStreamed) {
  const std::string_view cut = "Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1";
  const extracted_tool_calls whole = extract_tool_calls(tool_call_format::hermes, cut);
  EXPECT_EQ(whole.content, cut);
  EXPECT_TRUE(whole.calls.empty());
  const auto s = testing::stream_in_pieces(tool_call_format::hermes, cut, 1);
  EXPECT_EQ(s.result.content, "Hi ");
  ASSERT_EQ(s.result.calls.size(), 1u);
  EXPECT_EQ(s.result.calls[0].arguments, "{\"a\":");  // the number could have gone on

  const std::string_view bad =
      "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": tru}}</tool_call>";
  EXPECT_EQ(extract_tool_calls(tool_call_format::hermes, bad).content, bad);
  const auto b = testing::stream_in_pieces(tool_call_format::hermes, bad, 3);
  EXPECT_EQ(b.result.content, "}}</tool_call>");
  ASSERT_EQ(b.result.calls.size(), 1u);
  EXPECT_EQ(b.result.calls[0].arguments, "{\"a\":");
}

TEST(tool_call_parser, StreamedContentIsHeldOnlyWhileItCouldBeAMarker) {
  tool_call_streamer s(tool_call_format::hermes);
  EXPECT_EQ(s.push("Hello <tool").content, "Hello ");
  EXPECT_EQ(s.push("ing").content, "<tooling");
  EXPECT_EQ(s.push(" <").content, " ");
  EXPECT_EQ(s.flush().content, "<");
  EXPECT_EQ(s.num_calls(), 0u);
}

TEST(tool_call_parser, StreamedArgumentsGoOutBeforeTheCallEnds) {
  tool_call_streamer s(tool_call_format::hermes);
  stream_delta d = s.push("<tool_call>\n{\"name\": \"get_weather\", ");
  EXPECT_TRUE(d.calls.empty());
  d = s.push("\"arguments\": {\"city\": \"Par");
  ASSERT_EQ(d.calls.size(), 1u);
  EXPECT_EQ(d.calls[0].index, 0u);
  EXPECT_EQ(d.calls[0].name, "get_weather");
  EXPECT_EQ(d.calls[0].arguments, "{\"city\":\"Par");
  d = s.push("is\", \"days\": 1");  // the number could go on: held back
  ASSERT_EQ(d.calls.size(), 1u);
  EXPECT_EQ(d.calls[0].name, std::nullopt);
  EXPECT_EQ(d.calls[0].arguments, "is\",\"days\":");
  d = s.push("0}}\n</tool_call>");
  ASSERT_EQ(d.calls.size(), 1u);
  EXPECT_EQ(d.calls[0].arguments, "10}");
  EXPECT_EQ(s.flush().content, "");
  EXPECT_EQ(s.num_calls(), 1u);
}

// --- llama3_json ---------------------------------------------------------------------------

TEST(tool_call_parser, Llama3JsonCallsSeparatedBySemicolons) {
  expect_calls(tool_call_format::llama3_json,
               "<|python_tag|>{\"name\": \"a\", \"parameters\": {\"x\": \"1\"}}; "
               "{\"name\": \"b\", \"arguments\": {}}",
               "", {{"a", "{\"x\":\"1\"}"}, {"b", "{}"}});
  expect_calls(tool_call_format::llama3_json,
               " {\"name\": \"a\", \"parameters\": {}};{\"name\": \"b\", \"parameters\": {}}\n", "",
               {{"a", "{}"}, {"b", "{}"}});
}

TEST(tool_call_parser, Llama3JsonTextThatIsNotACallIsContent) {
  expect_content(tool_call_format::llama3_json, "The answer is {\"name\": \"a\"}.");
  expect_content(tool_call_format::llama3_json, "{\"a\": 1}");
  expect_content(tool_call_format::llama3_json, "<|python_tag|>print(1)");
  expect_content(tool_call_format::llama3_json, "<|python_");
}

TEST(tool_call_parser, Llama3JsonTextAfterTheCallsIsContent) {
  expect_calls(tool_call_format::llama3_json,
               "{\"name\": \"a\", \"parameters\": {}} and then; {\"name\": \"b\"}",
               " and then; {\"name\": \"b\"}", {{"a", "{}"}});
  expect_calls(tool_call_format::llama3_json, "{\"name\": \"a\", \"parameters\": {}}; oops",
               "; oops", {{"a", "{}"}});
}

// --- mistral -------------------------------------------------------------------------------

TEST(tool_call_parser, MistralCallsFollowTheMarker) {
  expect_calls(tool_call_format::mistral,
               "Let me look.[TOOL_CALLS] [{\"name\": \"search\", \"arguments\": {\"q\": \"vllm\", "
               "\"n\": 3}}, {\"name\": \"open\", \"arguments\": {\"id\": [1, 2]}}]",
               "Let me look.",
               {{"search", "{\"q\":\"vllm\",\"n\":3}"}, {"open", "{\"id\":[1,2]}"}});
}

TEST(tool_call_parser, MistralWithoutAWellFormedListIsContent) {
  expect_content(tool_call_format::mistral, "No calls [TOOL] here [");
  expect_content(tool_call_format::mistral, "[TOOL_CALLS]{\"name\": \"a\", \"arguments\": {}}");
  expect_content(tool_call_format::mistral, "[TOOL_CALLS][{\"name\": null, \"arguments\": {}}]");
}

// --- pythonic ------------------------------------------------------------------------------

TEST(tool_call_parser, PythonicLiteralsBecomeJson) {
  expect_calls(
      tool_call_format::pythonic, "[f(a=1, b=\"x\", c=[1,2], d={\"k\": True}, e=None), g()]", "",
      {{"f", "{\"a\":1,\"b\":\"x\",\"c\":[1,2],\"d\":{\"k\":true},\"e\":null}"}, {"g", "{}"}});
  expect_calls(tool_call_format::pythonic,
               " [get_weather(city='It\\'s \"here\"\\n', t=\"\\t\\u00e9\\x41\", n=-1.5, m=.5, "
               "p=+2, tup=(1, 'a',), f=False, nested={'a': [{'b': None}]},)]\n",
               "",
               {{"get_weather",
                 "{\"city\":\"It's \\\"here\\\"\\n\",\"t\":\"\\téA\",\"n\":-1.5E0,\"m\":5E-1,"
                 "\"p\":2,\"tup\":[1,\"a\"],\"f\":false,\"nested\":{\"a\":[{\"b\":null}]}}"}});
}

TEST(tool_call_parser, PythonicThatIsNotACallListIsContent) {
  expect_content(tool_call_format::pythonic, "Hello [f(a=1)]");
  expect_content(tool_call_format::pythonic, "[1, 2]");
  expect_content(tool_call_format::pythonic, "[]");
  expect_content(tool_call_format::pythonic, "[f(1)]");
  expect_content(tool_call_format::pythonic, "[f(a=x)]");
  expect_content(tool_call_format::pythonic, "[f(a='unterminated)]");
  expect_content(tool_call_format::pythonic, "[f(a={1: 2})]");
  // Nested deeper than the reader's bound (64).
  expect_content(tool_call_format::pythonic,
                 "[f(a=" + std::string(80, '[') + std::string(80, ']') + ")]");
}

TEST(tool_call_parser, PythonicListThatBreaksAfterACallKeepsIt) {
  expect_calls(tool_call_format::pythonic, "[f(a=1), oops] more", ", oops] more",
               {{"f", "{\"a\":1}"}});
  expect_calls(tool_call_format::pythonic, "[f(a=1)] and text", " and text", {{"f", "{\"a\":1}"}});
}

// --- json_array and named (the server's grammar-forced formats) ---------------------------

TEST(tool_call_parser, JsonArrayOfCalls) {
  expect_calls(tool_call_format::json_array,
               "[{\"name\":\"f\",\"parameters\":{\"a\":1}},{\"name\":\"g\",\"parameters\":{}}]", "",
               {{"f", "{\"a\":1}"}, {"g", "{}"}});
  expect_calls(tool_call_format::json_array,
               "\n[ {\"name\": \"f\", \"parameters\": {\"s\": \"a,b]\"}} ]\n", "",
               {{"f", "{\"s\":\"a,b]\"}"}});
  expect_content(tool_call_format::json_array, "[]");
  expect_content(tool_call_format::json_array, "{\"name\":\"f\",\"parameters\":{}}");
}

TEST(tool_call_parser, NamedTextIsTheArguments) {
  expect_calls(tool_call_format::named, "{\"city\": \"Paris\", \"days\": [1, {\"x\": null}]}", "",
               {{"get_weather", "{\"city\":\"Paris\",\"days\":[1,{\"x\":null}]}"}}, "get_weather");
  expect_calls(tool_call_format::named, "  {}  ", "", {{"f", "{}"}}, "f");
  expect_content(tool_call_format::named, "I will not.", "f");
  expect_calls(tool_call_format::named, "{} then", " then", {{"f", "{}"}}, "f");
}

}  // namespace
}  // namespace pagedserve::net
