// The `pagedserve serve` command line: one flag per key, the file first, flags over it.

#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net/config/serve_args.h"
#include "tests/net/config/temp_file.h"

namespace pagedserve::net {
namespace {

using ::testing::HasSubstr;
using testing::temp_file;

result<serve_args> parse(std::vector<std::string_view> args) { return parse_serve_args(args); }

std::string parse_error(std::vector<std::string_view> args) {
  auto r = parse_serve_args(args);
  return r ? "" : r.err().message;
}

TEST(ServeArgs, NoArgumentsGiveTheDefaults) {
  auto r = parse({});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_FALSE(r->help);
  EXPECT_EQ(r->config.port, 8000);
  EXPECT_TRUE(r->config.engine.model_dir.empty());
}

TEST(ServeArgs, FlagsAreTheKeysWithDashes) {
  auto r = parse({"--max-num-seqs", "8", "--port=0", "--model", "/models/x", "--api-key", "k",
                  "--gpu-memory-utilization", "0.8", "--scheduling-policy", "priority"});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->config.engine.sched.max_num_seqs, 8u);
  EXPECT_EQ(r->config.port, 0);
  EXPECT_EQ(r->config.engine.model_dir, "/models/x");
  EXPECT_EQ(r->config.api_key, "k");
  EXPECT_DOUBLE_EQ(r->config.engine.gpu_memory_utilization, 0.8);
  EXPECT_EQ(r->config.engine.sched.policy, sched::scheduling_policy::priority);
  EXPECT_EQ(flag_name("max_num_batched_tokens"), "max-num-batched-tokens");
}

TEST(ServeArgs, BooleansTakeAValueOrStandAlone) {
  auto off = parse({"--enable-prefix-caching", "false", "--enable-chunked-prefill=no"});
  ASSERT_TRUE(off) << off.err().message;
  EXPECT_FALSE(off->config.engine.sched.enable_prefix_caching);
  EXPECT_FALSE(off->config.engine.sched.enable_chunked_prefill);

  auto bare = parse({"--no-enable-prefix-caching", "--enable-prefix-caching", "--port", "9"});
  ASSERT_TRUE(bare) << bare.err().message;
  EXPECT_TRUE(bare->config.engine.sched.enable_prefix_caching);  // the last flag wins
  EXPECT_EQ(bare->config.port, 9);

  auto negated = parse({"--no-enable-chunked-prefill", "--max-num-batched-tokens", "4096",
                        "--max-model-len", "4096"});
  ASSERT_TRUE(negated) << negated.err().message;
  EXPECT_FALSE(negated->config.engine.sched.enable_chunked_prefill);
}

TEST(ServeArgs, CudaSettingsReachTheEngineConfig) {
  auto r = parse({"--backend", "cuda", "--dtype", "float16", "--enforce-eager",
                  "--gpu-memory-utilization=0.5"});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->config.engine.backend, "cuda");
  EXPECT_EQ(r->config.engine.dtype, "float16");
  EXPECT_TRUE(r->config.engine.enforce_eager);
  EXPECT_DOUBLE_EQ(r->config.engine.gpu_memory_utilization, 0.5);

  auto graphs = parse({"--enforce-eager", "--no-enforce-eager"});
  ASSERT_TRUE(graphs) << graphs.err().message;
  EXPECT_FALSE(graphs->config.engine.enforce_eager);
  EXPECT_EQ(parse_error({"--dtype", "int8"}),
            "--dtype: dtype: expected auto | float32 | bfloat16 | float16, got 'int8'");
}

TEST(ServeArgs, FlagsOverrideTheFileWhereverConfigAppears) {
  temp_file file("serve.yaml", "port: 9000\nmax_num_seqs: 4\nhost: 0.0.0.0\n");
  const std::string path = file.path().string();
  auto r = parse({"--port", "9100", "--config", path});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->config.port, 9100);
  EXPECT_EQ(r->config.engine.sched.max_num_seqs, 4u);
  EXPECT_EQ(r->config.host, "0.0.0.0");
}

// vLLM's --chat-template (a path or the template inline: any text) and
// --trust-request-chat-template; the template itself is loaded when the server starts.
TEST(ServeArgs, ChatTemplateFlagsAreVllms) {
  auto defaults = parse({});
  ASSERT_TRUE(defaults) << defaults.err().message;
  EXPECT_EQ(defaults->config.chat_template, "");
  EXPECT_FALSE(defaults->config.trust_request_chat_template);
  auto r =
      parse({"--chat-template", "/templates/tool_chat.jinja", "--trust-request-chat-template"});
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->config.chat_template, "/templates/tool_chat.jinja");
  EXPECT_TRUE(r->config.trust_request_chat_template);
  auto inline_template = parse({"--chat-template={{ messages[0].content }}"});
  ASSERT_TRUE(inline_template) << inline_template.err().message;
  EXPECT_EQ(inline_template->config.chat_template, "{{ messages[0].content }}");
  temp_file file("serve.yaml",
                 "chat_template: \"{% for m in messages %}{{ m.content }}{% endfor %}\"\n"
                 "trust_request_chat_template: true\n");
  auto from_file = parse({"--config", file.path().string()});
  ASSERT_TRUE(from_file) << from_file.err().message;
  EXPECT_EQ(from_file->config.chat_template, "{% for m in messages %}{{ m.content }}{% endfor %}");
  EXPECT_TRUE(from_file->config.trust_request_chat_template);
  EXPECT_EQ(parse_error({"--trust-request-chat-template", "maybe"}),
            "unexpected argument 'maybe' (flags start with --)");
}

TEST(ServeArgs, ErrorsNameTheFlag) {
  EXPECT_EQ(parse_error({"--max-num-seqs", "zero"}),
            "--max-num-seqs: max_num_seqs: expected a non-negative integer, got 'zero'");
  EXPECT_EQ(parse_error({"--max-num-seq", "8"}),
            "unknown option '--max-num-seq' (pagedserve serve --help lists them)");
  EXPECT_EQ(parse_error({"--port"}), "--port needs a value");
  EXPECT_EQ(parse_error({"--no-port"}),
            "unknown option '--no-port' (pagedserve serve --help lists them)");
  EXPECT_EQ(parse_error({"--no-enable-prefix-caching=true"}),
            "--no-enable-prefix-caching takes no value");
  EXPECT_EQ(parse_error({"serve.yaml"}), "unexpected argument 'serve.yaml' (flags start with --)");
  EXPECT_EQ(parse_error({"--config"}), "--config needs a file");
  EXPECT_THAT(parse_error({"--model", "/m", "--model-config", "/m/config.json"}),
              HasSubstr("invalid configuration: model_dir"));
}

TEST(ServeArgs, FileErrorsNameTheKeyAndTheFile) {
  temp_file file("serve.yaml", "max_batch: 4\n");
  const std::string path = file.path().string();
  EXPECT_THAT(parse_error({"--config", path}), HasSubstr("unknown key 'max_batch' in " + path));
}

TEST(ServeArgs, HelpListsEveryFlagWithItsDefault) {
  auto r = parse({"--port", "notanumber", "--help"});
  ASSERT_TRUE(r);  // --help wins over everything else
  EXPECT_TRUE(r->help);
  const std::string usage = serve_usage();
  for (const config_key_info& info : config_keys()) {
    EXPECT_THAT(usage, HasSubstr("--" + flag_name(info.key) + " ")) << info.key;
  }
  EXPECT_THAT(usage, HasSubstr("--max-num-seqs VALUE\n      most sequences running in one step "
                               "(default: 256)"));
  EXPECT_THAT(usage, HasSubstr("--enable-prefix-caching [true|false]"));
  EXPECT_THAT(usage, HasSubstr("--enforce-eager [true|false]\n      CUDA: run every step eagerly"));
  EXPECT_THAT(usage, HasSubstr("--config FILE"));
}

}  // namespace
}  // namespace pagedserve::net
