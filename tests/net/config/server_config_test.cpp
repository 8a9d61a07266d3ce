// server_config: keys set from text, YAML files over the defaults, and errors that name the
// key, the value and the file.

#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net/config/server_config.h"
#include "tests/net/config/temp_file.h"

namespace pagedserve::net {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::temp_file;

std::string set_error(std::string_view key, std::string_view value) {
  server_config config;
  status s = set_config_key(config, key, value);
  return s ? "" : s.err().message;
}

std::string load_error(const std::string& yaml) {
  temp_file file("config.yaml", yaml);
  auto config = load_server_config(file.path());
  return config ? "" : config.err().message;
}

TEST(ServerConfig, SetsEachKindOfKeyFromText) {
  server_config c;
  ASSERT_TRUE(set_config_key(c, "model", "/models/llama"));
  ASSERT_TRUE(set_config_key(c, "max_num_seqs", "8"));
  ASSERT_TRUE(set_config_key(c, "enable_prefix_caching", "false"));
  ASSERT_TRUE(set_config_key(c, "gpu_memory_utilization", "0.5"));
  ASSERT_TRUE(set_config_key(c, "dtype", "bfloat16"));
  ASSERT_TRUE(set_config_key(c, "enforce_eager", "true"));
  ASSERT_TRUE(set_config_key(c, "scheduling_policy", "priority"));
  ASSERT_TRUE(set_config_key(c, "port", "65535"));
  ASSERT_TRUE(set_config_key(c, "seed", "18446744073709551615"));
  EXPECT_EQ(c.engine.model_dir, "/models/llama");
  EXPECT_EQ(c.engine.sched.max_num_seqs, 8u);
  EXPECT_FALSE(c.engine.sched.enable_prefix_caching);
  EXPECT_DOUBLE_EQ(c.engine.gpu_memory_utilization, 0.5);
  EXPECT_EQ(c.engine.dtype, "bfloat16");
  EXPECT_TRUE(c.engine.enforce_eager);
  EXPECT_EQ(c.engine.sched.policy, sched::scheduling_policy::priority);
  EXPECT_EQ(c.port, 65535);
  EXPECT_EQ(c.engine.weights_seed, 18446744073709551615ull);
}

TEST(ServerConfig, EveryKeyReadsBackWhatWasSet) {
  server_config defaults;
  for (const config_key_info& info : config_keys()) {
    auto text = get_config_key(defaults, info.key);
    ASSERT_TRUE(text) << info.key;
    server_config c;
    EXPECT_TRUE(set_config_key(c, info.key, *text)) << info.key << " = " << *text;
    EXPECT_EQ(get_config_key(c, info.key).value(), *text) << info.key;
    EXPECT_FALSE(info.description.empty()) << info.key;
  }
}

TEST(ServerConfig, HasEveryDocumentedKeyOnce) {
  std::set<std::string> seen;
  for (const config_key_info& info : config_keys()) EXPECT_TRUE(seen.insert(info.key).second);
  const std::set<std::string> documented = {"model",
                                            "tokenizer",
                                            "load_format",
                                            "quantization",
                                            "kv_cache_dtype",
                                            "model_config",
                                            "backend",
                                            "cpu_activation_dtype",
                                            "generation_config",
                                            "dtype",
                                            "enforce_eager",
                                            "seed",
                                            "max_model_len",
                                            "block_size",
                                            "num_blocks",
                                            "gpu_memory_utilization",
                                            "enable_prefix_caching",
                                            "max_num_seqs",
                                            "max_num_batched_tokens",
                                            "enable_chunked_prefill",
                                            "long_prefill_token_threshold",
                                            "scheduling_policy",
                                            "max_waiting_requests",
                                            "max_n",
                                            "speculative_config",
                                            "host",
                                            "port",
                                            "api_key",
                                            "served_model_name",
                                            "reasoning_parser",
                                            "pooling_type",
                                            "tool_call_parser",
                                            "enable_auto_tool_choice",
                                            "chat_template",
                                            "trust_request_chat_template",
                                            "allowed_origins",
                                            "allowed_methods",
                                            "allowed_headers",
                                            "ui",
                                            "replicas",
                                            "routing",
                                            "publish",
                                            "engine_secret",
                                            "num_io_threads",
                                            "max_connections",
                                            "max_header_bytes",
                                            "max_body_bytes",
                                            "read_timeout_s",
                                            "idle_timeout_s",
                                            "ws_max_message_bytes",
                                            "ws_max_send_queue_bytes",
                                            "ws_ping_interval_s",
                                            "responses_store_max_count",
                                            "responses_store_max_bytes",
                                            "shutdown_timeout_s",
                                            "log_level"};
  EXPECT_EQ(seen, documented);
}

TEST(ServerConfig, BadValuesNameTheKeyAndTheValue) {
  EXPECT_EQ(set_error("max_num_seqs", "lots"),
            "max_num_seqs: expected a non-negative integer, got 'lots'");
  EXPECT_EQ(set_error("max_num_seqs", "0"), "max_num_seqs: must be at least 1, got '0'");
  EXPECT_EQ(set_error("max_num_seqs", "-3"),
            "max_num_seqs: expected a non-negative integer, got '-3'");
  EXPECT_EQ(set_error("port", "70000"), "port: must be at most 65535, got '70000'");
  EXPECT_EQ(set_error("block_size", "99999999999999999999"),
            "block_size: must be at most 4294967295, got '99999999999999999999'");
  EXPECT_EQ(set_error("gpu_memory_utilization", "1.5"),
            "gpu_memory_utilization: must be greater than 0 and at most 1, got '1.5'");
  EXPECT_EQ(set_error("gpu_memory_utilization", "0"),
            "gpu_memory_utilization: must be greater than 0 and at most 1, got '0'");
  EXPECT_EQ(set_error("read_timeout_s", "nan"), "read_timeout_s: expected a number, got 'nan'");
  EXPECT_EQ(set_error("enable_prefix_caching", "maybe"),
            "enable_prefix_caching: expected true or false, got 'maybe'");
  EXPECT_EQ(set_error("dtype", "int8"),
            "dtype: expected auto | float32 | bfloat16 | float16, got 'int8'");
  EXPECT_EQ(set_error("backend", "tpu"), "backend: expected cpu | cuda, got 'tpu'");
  EXPECT_EQ(set_error("scheduling_policy", "lifo"),
            "scheduling_policy: expected fcfs | priority, got 'lifo'");
  EXPECT_EQ(set_error("log_level", "loud"),
            "log_level: expected trace | debug | info | warn | error | off, got 'loud'");
  EXPECT_EQ(set_error("max_num_sequences", "8"), "unknown key 'max_num_sequences'");
}

TEST(ServerConfig, AcceptsTheUsualNumberAndBooleanSpellings) {
  server_config c;
  for (const char* yes : {"true", "True", "YES", "on", "1"}) {
    c.engine.sched.enable_chunked_prefill = false;
    ASSERT_TRUE(set_config_key(c, "enable_chunked_prefill", yes)) << yes;
    EXPECT_TRUE(c.engine.sched.enable_chunked_prefill) << yes;
  }
  ASSERT_TRUE(set_config_key(c, "read_timeout_s", "1e1"));
  EXPECT_DOUBLE_EQ(c.read_timeout_s, 10.0);
  ASSERT_TRUE(set_config_key(c, "idle_timeout_s", "+2.5"));
  EXPECT_DOUBLE_EQ(c.idle_timeout_s, 2.5);
  ASSERT_TRUE(set_config_key(c, "shutdown_timeout_s", "0"));
}

TEST(ServerConfig, LoadsAFileOverTheDefaults) {
  temp_file file("config.yaml",
                 "# a comment\n"
                 "model: /models/qwen3\n"
                 "max_num_seqs: 4\n"
                 "enable_prefix_caching: no\n"
                 "host: \"0.0.0.0\"\n"
                 "api_key: 'secret: with colon'\n"
                 "served_model_name:\n");
  auto c = load_server_config(file.path());
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->engine.model_dir, "/models/qwen3");
  EXPECT_EQ(c->engine.sched.max_num_seqs, 4u);
  EXPECT_FALSE(c->engine.sched.enable_prefix_caching);
  EXPECT_EQ(c->host, "0.0.0.0");
  EXPECT_EQ(c->api_key, "secret: with colon");
  EXPECT_EQ(c->served_model_name, "");
  const server_config defaults;       // (a named object: GCC 12 misjudges a temporary's strings)
  EXPECT_EQ(c->port, defaults.port);  // untouched keys keep their defaults
}

TEST(ServerConfig, ListKeysTakeAYamlListOrTheFlagSpellings) {
  temp_file file("cors.yaml",
                 "allowed_origins: [\"https://a.example\", http://localhost:3000]\n"
                 "allowed_methods:\n  - GET\n  - POST\n"
                 "allowed_headers: []\n");
  auto c = load_server_config(file.path());
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->allowed_origins,
            (std::vector<std::string>{"https://a.example", "http://localhost:3000"}));
  EXPECT_EQ(c->allowed_methods, (std::vector<std::string>{"GET", "POST"}));
  EXPECT_TRUE(c->allowed_headers.empty());
  server_config flags;
  ASSERT_TRUE(set_config_key(flags, "allowed_origins", R"(["https://a.example", "*"])"));
  EXPECT_EQ(flags.allowed_origins, (std::vector<std::string>{"https://a.example", "*"}));
  ASSERT_TRUE(set_config_key(flags, "allowed_origins", "a, b"));
  EXPECT_EQ(flags.allowed_origins, (std::vector<std::string>{"a", "b"}));
  EXPECT_THAT(set_error("allowed_origins", "a,,b"), HasSubstr("empty"));
  EXPECT_THAT(set_error("allowed_origins", "[a"), HasSubstr("'['"));
  EXPECT_THAT(load_error("allowed_origins: [[a]]\n"), HasSubstr("list of single values"));
}

TEST(ServerConfig, SpeculativeConfigIsAYamlMapOrVllmsJsonFlag) {
  temp_file file("spec.yaml",
                 "speculative_config:\n  method: ngram\n  num_speculative_tokens: 4\n"
                 "  prompt_lookup_max: 3\n");
  auto c = load_server_config(file.path());
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->engine.speculative.method, speculative_method::ngram);
  EXPECT_EQ(c->engine.speculative.num_speculative_tokens, 4u);
  // vLLM's defaults: the one bound given stands for both.
  EXPECT_EQ(c->engine.speculative.prompt_lookup_min, 3u);
  EXPECT_EQ(c->engine.speculative.prompt_lookup_max, 3u);
  server_config flags;
  ASSERT_TRUE(set_config_key(flags, "speculative_config",
                             R"({"method": "ngram", "num_speculative_tokens": 2})"));
  EXPECT_EQ(flags.engine.speculative.prompt_lookup_min, 5u);  // neither given: 5 and 5
  EXPECT_EQ(flags.engine.speculative.prompt_lookup_max, 5u);
  EXPECT_THAT(
      set_error("speculative_config", R"({"method": "eagle3", "num_speculative_tokens": 2})"),
      HasSubstr("method"));
  EXPECT_THAT(set_error("speculative_config", R"({"method": "ngram"})"),
              HasSubstr("num_speculative_tokens is required"));
  EXPECT_THAT(
      set_error("speculative_config", R"({"method": "ngram", "num_speculative_tokens": 99})"),
      HasSubstr("num_speculative_tokens must be in 1..16"));
  EXPECT_THAT(set_error("speculative_config",
                        R"({"method": "ngram", "num_speculative_tokens": 2, "draft": 1})"),
              HasSubstr("unknown field 'draft'"));
  EXPECT_THAT(set_error("speculative_config", "ngram"), HasSubstr("not JSON"));
  EXPECT_THAT(load_error("speculative_config: [1]\n"), HasSubstr("got a list"));
  // draft_model: the draft's folder is required, and only there.
  temp_file draft("draft.yaml",
                  "speculative_config:\n  method: draft_model\n  model: pagedserve-demo-draft\n"
                  "  num_speculative_tokens: 3\n");
  auto d = load_server_config(draft.path());
  ASSERT_TRUE(d) << d.err().message;
  EXPECT_EQ(d->engine.speculative.method, speculative_method::draft_model);
  EXPECT_EQ(d->engine.speculative.model, "pagedserve-demo-draft");
  EXPECT_EQ(parse_speculative_config(format_speculative_config(d->engine.speculative))->model,
            "pagedserve-demo-draft");
  EXPECT_THAT(
      set_error("speculative_config", R"({"method": "draft_model", "num_speculative_tokens": 2})"),
      HasSubstr("draft_model needs model"));
  EXPECT_THAT(set_error("speculative_config",
                        R"({"method": "ngram", "model": "x", "num_speculative_tokens": 2})"),
              HasSubstr("model is for method draft_model only"));
}

TEST(ServerConfig, EmptyFileGivesTheDefaults) {
  temp_file file("empty.yaml", "# nothing set\n");
  auto c = load_server_config(file.path());
  ASSERT_TRUE(c) << c.err().message;
  EXPECT_EQ(c->port, 8000);
  EXPECT_EQ(c->host, "127.0.0.1");
}

TEST(ServerConfig, FileErrorsNameTheKeyTheFileAndTheLine) {
  temp_file file("bad.yaml", "port: 8000\nmax_num_seq: 8\n");
  auto c = load_server_config(file.path());
  ASSERT_FALSE(c);
  EXPECT_THAT(c.err().message,
              HasSubstr("unknown key 'max_num_seq' in " + file.path().string() + ":2"));
  EXPECT_THAT(c.err().message, HasSubstr("did you mean 'max_num_seqs'?"));

  EXPECT_THAT(load_error("port: eighty\n"),
              HasSubstr("port: expected a non-negative integer, got 'eighty'"));
  EXPECT_THAT(load_error("model:\n  path: /x\n"), HasSubstr("key 'model' in"));
  EXPECT_THAT(load_error("model:\n  path: /x\n"), HasSubstr("must be a single value, got a map"));
  EXPECT_THAT(load_error("host: [a, b]\n"), HasSubstr("key 'host' in"));
  EXPECT_THAT(load_error("host: [a, b]\n"), HasSubstr("got a list"));
  EXPECT_THAT(load_error("- port\n"), HasSubstr("must be a map of keys to values"));
  EXPECT_THAT(load_error("port: [\n"), HasSubstr("is not valid YAML"));
  EXPECT_THAT(load_error("totally_unknown: 1\n"), Not(HasSubstr("did you mean")));
}

TEST(ServerConfig, MissingFileIsAnError) {
  auto c = load_server_config("/nonexistent/pagedserve.yaml");
  ASSERT_FALSE(c);
  EXPECT_THAT(c.err().message, HasSubstr("/nonexistent/pagedserve.yaml"));
}

TEST(ServerConfig, ValidateChecksAcrossKeys) {
  const server_config defaults;
  EXPECT_TRUE(validate(defaults));
  server_config both;
  both.engine.model_dir = "/m";
  both.engine.model_config_file = "/m/config.json";
  EXPECT_FALSE(validate(both));
  server_config no_host;
  no_host.host = "";
  EXPECT_THAT(validate(no_host).err().message, HasSubstr("host"));
  server_config bad_dtype;
  bad_dtype.engine.dtype = "int4";  // set in code, bypassing the key's parser
  EXPECT_THAT(validate(bad_dtype).err().message, HasSubstr("dtype"));
  server_config no_memory;
  no_memory.engine.gpu_memory_utilization = 0.0;
  EXPECT_THAT(validate(no_memory).err().message, HasSubstr("gpu_memory_utilization"));
  server_config zero_timeout;
  zero_timeout.read_timeout_s = 0.0;
  EXPECT_THAT(validate(zero_timeout).err().message, HasSubstr("read_timeout_s"));
  server_config batch_too_small;
  batch_too_small.engine.sched.enable_chunked_prefill = false;
  batch_too_small.engine.sched.max_num_batched_tokens = 16;
  batch_too_small.engine.sched.max_model_len = 2048;
  EXPECT_FALSE(validate(batch_too_small));
}

}  // namespace
}  // namespace pagedserve::net
