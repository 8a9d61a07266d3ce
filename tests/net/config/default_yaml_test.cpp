// config/default.yaml is the reference for every key: it must list each key of
// config_keys() in order, with exactly the default value, so the file cannot drift from the
// code. The examples in config/examples/ must load and validate.

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "net/config/server_config.h"
#include "tests/support/test_paths.h"

namespace pagedserve::net {
namespace {

const std::filesystem::path config_dir = pagedserve::testing::source_dir() / "config";

// Every field, one by one (a new field belongs here, in config_keys() and in the file).
void expect_same(const server_config& a, const server_config& b) {
  EXPECT_EQ(a.engine.model_dir, b.engine.model_dir);
  EXPECT_EQ(a.engine.model_config_file, b.engine.model_config_file);
  EXPECT_EQ(a.engine.load_format, b.engine.load_format);
  EXPECT_EQ(a.engine.tokenizer_dir, b.engine.tokenizer_dir);
  EXPECT_EQ(a.engine.backend, b.engine.backend);
  EXPECT_EQ(a.engine.dtype, b.engine.dtype);
  EXPECT_EQ(a.engine.enforce_eager, b.engine.enforce_eager);
  EXPECT_EQ(a.engine.weights_seed, b.engine.weights_seed);
  EXPECT_EQ(format_speculative_config(a.engine.speculative),
            format_speculative_config(b.engine.speculative));
  EXPECT_EQ(a.engine.sched.max_num_seqs, b.engine.sched.max_num_seqs);
  EXPECT_EQ(a.engine.sched.max_num_batched_tokens, b.engine.sched.max_num_batched_tokens);
  EXPECT_EQ(a.engine.sched.max_model_len, b.engine.sched.max_model_len);
  EXPECT_EQ(a.engine.sched.block_size, b.engine.sched.block_size);
  EXPECT_EQ(a.engine.sched.num_blocks, b.engine.sched.num_blocks);
  EXPECT_EQ(a.engine.sched.enable_prefix_caching, b.engine.sched.enable_prefix_caching);
  EXPECT_EQ(a.engine.sched.policy, b.engine.sched.policy);
  EXPECT_EQ(a.engine.sched.watermark, b.engine.sched.watermark);
  EXPECT_EQ(a.engine.sched.enable_chunked_prefill, b.engine.sched.enable_chunked_prefill);
  EXPECT_EQ(a.engine.sched.long_prefill_token_threshold,
            b.engine.sched.long_prefill_token_threshold);
  EXPECT_EQ(a.engine.max_waiting_requests, b.engine.max_waiting_requests);
  EXPECT_EQ(a.engine.max_n, b.engine.max_n);
  EXPECT_EQ(a.engine.gpu_memory_utilization, b.engine.gpu_memory_utilization);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.port, b.port);
  EXPECT_EQ(a.api_key, b.api_key);
  EXPECT_EQ(a.served_model_name, b.served_model_name);
  EXPECT_EQ(a.reasoning_parser, b.reasoning_parser);
  EXPECT_EQ(a.tool_call_parser, b.tool_call_parser);
  EXPECT_EQ(a.enable_auto_tool_choice, b.enable_auto_tool_choice);
  EXPECT_EQ(a.chat_template, b.chat_template);
  EXPECT_EQ(a.trust_request_chat_template, b.trust_request_chat_template);
  EXPECT_EQ(a.ui, b.ui);
  EXPECT_EQ(a.num_io_threads, b.num_io_threads);
  EXPECT_EQ(a.max_connections, b.max_connections);
  EXPECT_EQ(a.max_header_bytes, b.max_header_bytes);
  EXPECT_EQ(a.max_body_bytes, b.max_body_bytes);
  EXPECT_EQ(a.read_timeout_s, b.read_timeout_s);
  EXPECT_EQ(a.idle_timeout_s, b.idle_timeout_s);
  EXPECT_EQ(a.ws_max_message_bytes, b.ws_max_message_bytes);
  EXPECT_EQ(a.ws_max_send_queue_bytes, b.ws_max_send_queue_bytes);
  EXPECT_EQ(a.ws_ping_interval_s, b.ws_ping_interval_s);
  EXPECT_EQ(a.shutdown_timeout_s, b.shutdown_timeout_s);
  EXPECT_EQ(a.log_level, b.log_level);
  EXPECT_EQ(a.handle_signals, b.handle_signals);
}

TEST(DefaultYaml, HoldsExactlyTheDefaults) {
  auto loaded = load_server_config(config_dir / "default.yaml");
  ASSERT_TRUE(loaded) << loaded.err().message;
  const server_config defaults;  // (a named object: GCC 12 misjudges a temporary's strings)
  expect_same(*loaded, defaults);
  EXPECT_TRUE(validate(*loaded));
}

TEST(DefaultYaml, ListsEveryKeyInTableOrder) {
  const YAML::Node root = YAML::LoadFile((config_dir / "default.yaml").string());
  std::vector<std::string> in_file;
  for (const auto& entry : root) in_file.push_back(entry.first.Scalar());
  std::vector<std::string> in_table;
  for (const config_key_info& info : config_keys()) in_table.push_back(info.key);
  EXPECT_EQ(in_file, in_table);
}

// A key whose default is not written out would still load: check each value text too (the
// file's spelling may differ, e.g. 30.0 for 30, so compare what each parses to).
TEST(DefaultYaml, EveryValueParsesToTheDefault) {
  const YAML::Node root = YAML::LoadFile((config_dir / "default.yaml").string());
  const server_config defaults;
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    std::string text = entry.second.IsSequence() ? "" : entry.second.Scalar();
    for (std::size_t i = 0; entry.second.IsSequence() && i < entry.second.size(); ++i) {
      text += (i == 0 ? "" : ",") + entry.second[i].Scalar();  // a list key's items
    }
    server_config c;
    ASSERT_TRUE(set_config_key(c, key, text)) << key;
    EXPECT_EQ(get_config_key(c, key).value(), get_config_key(defaults, key).value()) << key;
  }
}

TEST(ConfigExamples, EachLoadsAndValidates) {
  std::size_t num_examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(config_dir / "examples")) {
    if (entry.path().extension() != ".yaml") continue;
    ++num_examples;
    auto loaded = load_server_config(entry.path());
    ASSERT_TRUE(loaded) << loaded.err().message;
    const status s = validate(*loaded);
    EXPECT_TRUE(s) << entry.path() << ": " << (s ? "" : s.err().message);
  }
  EXPECT_GE(num_examples, 3u);
}

TEST(ConfigExamples, SetWhatTheirNamesSay) {
  auto cuda = load_server_config(config_dir / "examples" / "llama-3.2-1b-cuda.yaml");
  ASSERT_TRUE(cuda) << cuda.err().message;
  EXPECT_EQ(cuda->engine.backend, "cuda");
  EXPECT_EQ(cuda->engine.dtype, "bfloat16");
  EXPECT_DOUBLE_EQ(cuda->engine.gpu_memory_utilization, 0.9);
  auto cpu = load_server_config(config_dir / "examples" / "qwen3-0.6b-cpu.yaml");
  ASSERT_TRUE(cpu) << cpu.err().message;
  EXPECT_EQ(cpu->engine.backend, "cpu");
  auto demo = load_server_config(config_dir / "examples" / "demo-public.yaml");
  ASSERT_TRUE(demo) << demo.err().message;
  EXPECT_EQ(demo->host, "0.0.0.0");
  EXPECT_FALSE(demo->api_key.empty());
  EXPECT_TRUE(demo->engine.model_dir.empty());
}

}  // namespace
}  // namespace pagedserve::net
