// Malformed and hostile bodies through both parsers: each must come back as the documented
// OpenAI error (status, type, param, code), never as a request and never as a crash.

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using testing::cat;
using testing::llama3;
using testing::parse;

constexpr api_kind C = api_kind::completion;
constexpr api_kind H = api_kind::chat_completion;

struct reject_case {
  api_kind kind;
  std::string body;
  unsigned status;
  std::optional<std::string> param;
  std::optional<std::string> code = std::nullopt;
};

std::string many_stops(int count) {
  std::string list = "[";
  for (int i = 0; i < count; ++i) list += cat({i ? ",\"s" : "\"s", std::to_string(i), "\""});
  return list + "]";
}

std::string id_list(int count, int id) {
  std::string list = "[";
  for (int i = 0; i < count; ++i) list += cat({i ? "," : "", std::to_string(id)});
  return list + "]";
}

std::string repeated(const std::string& text, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += text;
  return out;
}

std::string user_message(const std::string& content_json) {
  return cat({R"({"messages":[{"role":"user","content":)", content_json, "}]}"});
}

const std::vector<reject_case>& cases() {
  static const std::vector<reject_case> all = {
      // The body itself.
      {C, R"([])", 400, std::nullopt},
      {C, R"("hello")", 400, std::nullopt},
      {H, R"(42)", 400, std::nullopt},
      {C, R"({})", 400, "prompt"},
      // prompt, in every wrong shape.
      {C, R"({"prompt":5})", 400, "prompt"},
      {C, R"({"prompt":""})", 400, "prompt"},
      {C, R"({"prompt":[]})", 400, "prompt"},
      {C, R"({"prompt":[[]]})", 400, "prompt"},
      {C, R"({"prompt":["a",1]})", 400, "prompt"},
      {C, R"({"prompt":["a",""]})", 400, "prompt"},
      {C, R"({"prompt":[1,"a"]})", 400, "prompt"},
      {C, R"({"prompt":[1.5]})", 400, "prompt"},
      {C, R"({"prompt":[true]})", 400, "prompt"},
      {C, cat({R"({"prompt":[)", repeated("\"a\",", 1025), R"("a"]})"}), 400, "prompt"},
      {C, R"({"prompt":[{"a":1}]})", 400, "prompt"},
      {C, R"({"prompt":[-1]})", 400, "prompt"},
      {C, R"({"prompt":[128256]})", 400, "prompt"},
      {C, R"({"prompt":[[1,2],[99999999999999999999]]})", 400, "prompt"},
      // max_tokens and the context.
      {C, R"({"prompt":"Hi","max_tokens":"16"})", 400, "max_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":0})", 400, "max_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":-5})", 400, "max_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":1.5})", 400, "max_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":1e30})", 400, "max_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":1e400})", 400, "max_tokens"},
      {C, cat({R"({"prompt":"Hi","max_tokens":)", repeated("9", 100000), "}"}), 400, "max_tokens"},
      {H, R"({"messages":[{"role":"user","content":"Hi"}],"max_tokens":-1e400})", 400,
       "max_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":4294967296})", 400, "max_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":1000})", 400, "max_tokens", "context_length_exceeded"},
      {C, cat({R"({"prompt":)", id_list(300, 9906), "}"}), 400, "prompt",
       "context_length_exceeded"},
      {C, cat({R"({"prompt":)", id_list(256, 9906), R"(,"max_tokens":null})"}), 400, "prompt",
       "context_length_exceeded"},
      // Sampling fields: types and ranges.
      {C, R"({"prompt":"Hi","temperature":"hot"})", 400, "temperature"},
      {C, R"({"prompt":"Hi","temperature":2.5})", 400, "temperature"},
      {C, R"({"prompt":"Hi","temperature":-0.1})", 400, "temperature"},
      {C, R"({"prompt":"Hi","top_p":0})", 400, "top_p"},
      {C, R"({"prompt":"Hi","top_p":1.5})", 400, "top_p"},
      {C, R"({"prompt":"Hi","top_k":-2})", 400, "top_k"},
      {C, R"({"prompt":"Hi","top_k":2.5})", 400, "top_k"},
      {C, R"({"prompt":"Hi","min_p":1.5})", 400, "min_p"},
      {C, R"({"prompt":"Hi","seed":"x"})", 400, "seed"},
      {C, R"({"prompt":"Hi","seed":1.5})", 400, "seed"},
      {C, R"({"prompt":"Hi","seed":18446744073709551615})", 400, "seed"},
      {C, R"({"prompt":"Hi","stop":5})", 400, "stop"},
      {C, R"({"prompt":"Hi","stop":["a",1]})", 400, "stop"},
      {C, R"({"prompt":"Hi","stop":[""]})", 400, "stop"},
      {C, cat({R"({"prompt":"Hi","stop":)", many_stops(17), "}"}), 400, "stop"},
      {C, cat({R"({"prompt":"Hi","stop":")", std::string(2000, 'x'), "\"}"}), 400, "stop"},
      {C, R"({"prompt":"Hi","stop_token_ids":[-1]})", 400, "stop_token_ids"},
      {C, R"({"prompt":"Hi","stop_token_ids":"1"})", 400, "stop_token_ids"},
      {C, R"({"prompt":"Hi","stop_token_ids":[128256]})", 400, "stop_token_ids"},
      {C, R"({"prompt":"Hi","n":0})", 400, "n"},
      {C, R"({"prompt":"Hi","n":5})", 400, "n"},
      {C, R"({"prompt":"Hi","n":"2"})", 400, "n"},
      {C, R"({"prompt":"Hi","n":true})", 400, "n"},
      {C, R"({"prompt":"Hi","best_of":3})", 400, "best_of", "unsupported"},
      {C, R"({"prompt":"Hi","logprobs":21})", 400, "logprobs"},
      {C, R"({"prompt":"Hi","logprobs":-1})", 400, "logprobs"},
      {C, R"({"prompt":"Hi","logprobs":true})", 400, "logprobs"},
      {C, R"({"prompt":"Hi","echo":"yes"})", 400, "echo"},
      {C, R"({"prompt":"Hi","echo":true,"max_tokens":-1})", 400, "max_tokens"},
      // allowed_token_ids and bad_words (vLLM).
      {C, R"({"prompt":"Hi","allowed_token_ids":[]})", 400, "allowed_token_ids"},
      {C, R"({"prompt":"Hi","allowed_token_ids":[-1]})", 400, "allowed_token_ids"},
      {C, R"({"prompt":"Hi","allowed_token_ids":[128256]})", 400, "allowed_token_ids"},
      {C, R"({"prompt":"Hi","allowed_token_ids":["1"]})", 400, "allowed_token_ids"},
      {C, R"({"prompt":"Hi","allowed_token_ids":7})", 400, "allowed_token_ids"},
      {C, R"({"prompt":"Hi","bad_words":[""]})", 400, "bad_words"},
      {C, R"({"prompt":"Hi","bad_words":["  "]})", 400, "bad_words"},
      {C, R"({"prompt":"Hi","bad_words":[5]})", 400, "bad_words"},
      {C, R"({"prompt":"Hi","bad_words":"word"})", 400, "bad_words"},
      {C, R"({"prompt":"Hi","spaces_between_special_tokens":1})", 400,
       "spaces_between_special_tokens"},
      // prompt_logprobs (vLLM): 0..20, not with stream (except a neutral 0).
      {C, R"({"prompt":"Hi","prompt_logprobs":21})", 400, "prompt_logprobs"},
      {C, R"({"prompt":"Hi","prompt_logprobs":-1})", 400, "prompt_logprobs"},
      {C, R"({"prompt":"Hi","prompt_logprobs":"1"})", 400, "prompt_logprobs"},
      {C, R"({"prompt":"Hi","prompt_logprobs":1,"stream":true})", 400, "prompt_logprobs"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"prompt_logprobs":21})", 400,
       "prompt_logprobs"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"prompt_logprobs":2,"stream":true})", 400,
       "prompt_logprobs"},
      {C, R"({"prompt":"Hi","ignore_eos":1})", 400, "ignore_eos"},
      {C, R"({"prompt":"Hi","skip_special_tokens":"no"})", 400, "skip_special_tokens"},
      {C, R"({"prompt":"Hi","priority":1e10})", 400, "priority"},
      // Streaming.
      {C, R"({"prompt":"Hi","stream":"true"})", 400, "stream"},
      {C, R"({"prompt":"Hi","stream_options":{"include_usage":true}})", 400, "stream_options"},
      {C, R"({"prompt":"Hi","stream":false,"stream_options":{}})", 400, "stream_options"},
      {C, R"({"prompt":"Hi","stream":true,"stream_options":[]})", 400, "stream_options"},
      {C, R"({"prompt":"Hi","stream":true,"stream_options":{"include_usage":"yes"}})", 400,
       "stream_options.include_usage"},
      // Logits processing out of range.
      {C, R"({"prompt":"Hi","presence_penalty":2.5})", 400, "presence_penalty"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"presence_penalty":-2.01})", 400,
       "presence_penalty"},
      {C, R"({"prompt":"Hi","frequency_penalty":3})", 400, "frequency_penalty"},
      {C, R"({"prompt":"Hi","frequency_penalty":"1"})", 400, "frequency_penalty"},
      {C, R"({"prompt":"Hi","repetition_penalty":0})", 400, "repetition_penalty"},
      {C, R"({"prompt":"Hi","repetition_penalty":-1})", 400, "repetition_penalty"},
      {C, R"({"prompt":"Hi","logit_bias":"x"})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"abc":1}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"-1":1}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"1.5":1}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"99999999":1}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"5":101}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"5":-100.5}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"5":"1"}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","logit_bias":{"5":1,"05":2}})", 400, "logit_bias"},
      {C, R"({"prompt":"Hi","min_tokens":-1})", 400, "min_tokens"},
      {C, R"({"prompt":"Hi","min_tokens":1.5})", 400, "min_tokens"},
      {C, R"({"prompt":"Hi","max_tokens":4,"min_tokens":5})", 400, "min_tokens"},
      {H,
       R"({"messages":[{"role":"user","content":"x"}],"max_completion_tokens":2,"min_tokens":3})",
       400, "min_tokens"},
      // What the engine does not implement.
      {C, R"({"prompt":"Hi","suffix":"x"})", 400, "suffix", "unsupported"},
      // Identity fields.
      {C, R"({"prompt":"Hi","user":5})", 400, "user"},
      {C, R"({"prompt":"Hi","model":5})", 400, "model"},
      {C, R"({"prompt":"Hi","model":"gpt-4"})", 404, "model", "model_not_found"},
      {H, R"({"model":"other","messages":[{"role":"user","content":"x"}]})", 404, "model",
       "model_not_found"},
      // messages.
      {H, R"({})", 400, "messages"},
      {H, R"({"messages":"hi"})", 400, "messages"},
      {H, R"({"messages":[]})", 400, "messages"},
      {H, R"({"messages":[5]})", 400, "messages[0]"},
      {H, R"({"messages":[{"content":"x"}]})", 400, "messages[0].role"},
      {H, R"({"messages":[{"role":"robot","content":"x"}]})", 400, "messages[0].role"},
      {H, R"({"messages":[{"role":5,"content":"x"}]})", 400, "messages[0].role"},
      {H, R"({"messages":[{"role":"user","content":"x"},{"role":"user"}]})", 400,
       "messages[1].content"},
      {H, user_message("5"), 400, "messages[0].content"},
      {H, user_message(R"({"text":"x"})"), 400, "messages[0].content"},
      {H, user_message(R"(["x"])"), 400, "messages[0].content[0]"},
      {H, user_message(R"([{"type":"text"}])"), 400, "messages[0].content[0].text"},
      {H, user_message(R"([{"text":"x"}])"), 400, "messages[0].content[0].type"},
      {H, user_message(R"([{"type":"image_url","image_url":{"url":"http://x"}}])"), 400,
       "messages[0].content[0].type", "unsupported"},
      {H, R"({"messages":[{"role":"user","content":"x","name":3}]})", 400, "messages[0].name"},
      {H, user_message(cat({"\"", repeated("hello world ", 300), "\""})), 400, "messages",
       "context_length_exceeded"},
      // Chat-only fields.
      {H, R"({"messages":[{"role":"user","content":"x"}],"logprobs":5})", 400, "logprobs"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"top_logprobs":5})", 400, "top_logprobs"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":21})", 400,
       "top_logprobs"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"max_completion_tokens":0})", 400,
       "max_completion_tokens"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"max_tokens":250})", 400, "max_tokens",
       "context_length_exceeded"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"max_completion_tokens":1000})", 400,
       "max_completion_tokens", "context_length_exceeded"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"response_format":{"type":"xml"}})", 400,
       "response_format"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"response_format":"text"})", 400,
       "response_format"},
      {H,
       R"({"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema"}})",
       400, "response_format"},
      {H,
       R"({"messages":[{"role":"user","content":"x"}],"guided_regex":"a+","guided_choice":["a"]})",
       400, "guided_choice"},
      {C, R"({"prompt":"x","structured_outputs":{"choice":[]}})", 400, "structured_outputs.choice"},
      {C, R"({"prompt":"x","structured_outputs":{"regex":7}})", 400, "structured_outputs.regex"},
      {C, R"({"prompt":"x","structured_outputs":{"structural_tag":"{}"}})", 400,
       "structured_outputs.structural_tag", "unsupported"},
      {C, R"({"prompt":"x","guided_json":5})", 400, "guided_json"},
      {H,
       R"({"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}]})",
       400, "tool_choice"},  // auto (the default with tools) needs the server's parser
      {H, R"({"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function"}]})", 400,
       "tools"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"tools":[{"type":"retrieval"}]})", 400,
       "tools"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"tool_choice":"required"})", 400,
       "tool_choice"},
      {H,
       R"({"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"g"}}})",
       400, "tool_choice"},
      {H,
       R"({"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","guided_regex":"a"})",
       400, "tool_choice"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"functions":[{"name":"f"}]})", 400,
       "functions", "unsupported"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"chat_template_kwargs":"x"})", 400,
       "chat_template_kwargs"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"chat_template_kwargs":{"messages":[]}})",
       400, "chat_template_kwargs"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"n":9})", 400, "n"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"stream_options":{"include_usage":true}})",
       400, "stream_options"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"echo":true})", 400, "echo",
       "unsupported"},
      {H, R"({"messages":[{"role":"user","content":"x"}],"temperature":[1]})", 400, "temperature"},
  };
  return all;
}

TEST(openai_rejects, EveryMalformedBodyIsTheDocumentedError) {
  ASSERT_GE(cases().size(), 40U);
  for (const reject_case& c : cases()) {
    SCOPED_TRACE(c.body.substr(0, 200));
    const parse_outcome out = parse(c.kind, c.body);
    const auto* err = std::get_if<api_error>(&out);
    ASSERT_NE(err, nullptr) << "accepted";
    EXPECT_EQ(err->status, c.status) << err->message;
    EXPECT_EQ(err->type, "invalid_request_error");
    EXPECT_EQ(err->param, c.param) << err->message;
    if (c.code) {
      EXPECT_EQ(err->code, c.code) << err->message;
    }
    EXPECT_FALSE(err->message.empty());
  }
}

// vLLM's and SGLang's fields that this server does not implement: a 400 `unsupported`
// naming the field unless it holds the peers' default (vLLM's protocol.py), which passes.
TEST(openai_rejects, PeerFieldsAreRefusedUnlessNeutral) {
  struct peer_case {
    std::string field;
    std::string asks;     // a value that asks for the feature
    std::string neutral;  // the peers' default
  };
  const std::vector<peer_case> fields = {
      {"guided_whitespace_pattern", R"("[ ]*")", "null"},
      {"structural_tag", R"("{}")", "null"},
      {"use_beam_search", "true", "false"},
      {"length_penalty", "0.5", "1.0"},
      {"return_token_ids", "true", "false"},
      {"cache_salt", R"("tenant-a")", "null"},
      {"reasoning_effort", R"("low")", "null"},
  };
  for (const peer_case& f : fields) {
    for (const api_kind kind : {C, H}) {
      const std::string head =
          kind == C ? R"({"prompt":"Hi",")" : R"({"messages":[{"role":"user","content":"Hi"}],")";
      SCOPED_TRACE(f.field + (kind == C ? " in completions" : " in chat"));
      const parse_outcome refused = parse(kind, cat({head, f.field, "\":", f.asks, "}"}));
      const auto* err = std::get_if<api_error>(&refused);
      ASSERT_NE(err, nullptr) << "accepted";
      EXPECT_EQ(err->status, 400U);
      EXPECT_EQ(err->param, f.field);
      EXPECT_EQ(err->code, "unsupported") << err->message;
      const parse_outcome passed = parse(kind, cat({head, f.field, "\":", f.neutral, "}"}));
      EXPECT_TRUE(std::holds_alternative<api_request>(passed))
          << std::get<api_error>(passed).message;
    }
  }
  // documents is a chat field (the template's, chat_template_fields_test.cpp); completions
  // ignore it as any unknown field.
  EXPECT_TRUE(std::holds_alternative<api_request>(parse(C, R"({"prompt":"Hi","documents":[{}]})")));
  EXPECT_TRUE(std::holds_alternative<api_request>(
      parse(H, R"({"messages":[{"role":"user","content":"Hi"}],"documents":[{"text":"d"}]})")));
}

TEST(openai_rejects, ContextMessagesStateTheLimitAndTheCounts) {
  const parse_outcome out = parse(C, R"({"prompt":[9906,1917],"max_tokens":255})");
  const auto* err = std::get_if<api_error>(&out);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->message,
            "This model's maximum context length is 256 tokens. However, you requested 257 "
            "tokens (2 in the prompt, 255 in the completion). Please reduce the length of the "
            "prompt or completion.");
}

TEST(openai_rejects, AnUnknownModelIsNamedInThe404) {
  const parse_outcome out = parse(C, R"({"prompt":"Hi","model":"gpt-4"})");
  const auto* err = std::get_if<api_error>(&out);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->message, "The model `gpt-4` does not exist.");
}

TEST(openai_rejects, WrongTypesNameTheExpectedType) {
  const parse_outcome out = parse(C, R"({"prompt":"Hi","max_tokens":"16"})");
  const auto* err = std::get_if<api_error>(&out);
  ASSERT_NE(err, nullptr);
  EXPECT_EQ(err->message,
            "Invalid type for 'max_tokens': expected an integer, but got a string instead.");
}

TEST(openai_rejects, WithoutATokenizerTextAndChatAreRefusedButIdsPass) {
  model_context ids_only = llama3().context;
  ids_only.tok = nullptr;
  ids_only.template_ = nullptr;
  const auto text = parse(C, R"({"prompt":"Hi"})", ids_only);
  ASSERT_TRUE(std::holds_alternative<api_error>(text));
  EXPECT_EQ(std::get<api_error>(text).param, "prompt");
  const auto stop = parse(C, R"({"prompt":[1,2],"stop":"x"})", ids_only);
  ASSERT_TRUE(std::holds_alternative<api_error>(stop));
  EXPECT_EQ(std::get<api_error>(stop).param, "stop");
  const auto chat = parse(H, R"({"messages":[{"role":"user","content":"x"}]})", ids_only);
  ASSERT_TRUE(std::holds_alternative<api_error>(chat));
  EXPECT_EQ(std::get<api_error>(chat).status, 400U);
  const auto ids = parse(C, R"({"prompt":[1,2]})", ids_only);
  EXPECT_TRUE(std::holds_alternative<api_request>(ids));
}

TEST(openai_rejects, ATemplateThatRaisesIsA400OnMessages) {
  auto tmpl = chat_template::compile(
      "{% if messages[0]['role'] != 'system' %}{{ raise_exception('system first') }}{% endif %}"
      "{% for m in messages %}{{ m['content'] }}{% endfor %}");
  ASSERT_TRUE(tmpl.ok()) << tmpl.err().message;
  model_context strict = llama3().context;
  strict.template_ = &tmpl.value();
  const auto out = parse(H, R"({"messages":[{"role":"user","content":"x"}]})", strict);
  ASSERT_TRUE(std::holds_alternative<api_error>(out));
  EXPECT_EQ(std::get<api_error>(out).param, "messages");
  EXPECT_NE(std::get<api_error>(out).message.find("system first"), std::string::npos);
}

}  // namespace
}  // namespace pagedserve::net
