// The HF goldens: every case of goldens/chat/{llama3,qwen3}.json must render to exactly the
// `text` transformers produced, and encode (add_special_tokens=False) to exactly its `ids`.

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "runtime/chat/chat_template.h"
#include "runtime/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"

namespace pagedserve {
namespace {

boost::json::value read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str());
}

struct golden_case {
  chat_request request;
  std::string text;
  std::vector<token_id> ids;
};

std::vector<golden_case> load_cases(const std::string& family) {
  const auto doc = read_json(testing::goldens_dir() / "chat" / (family + ".json"));
  std::vector<golden_case> cases;
  for (const auto& c : doc.at("cases").as_array()) {
    golden_case g;
    g.request.messages = c.at("messages").as_array();
    g.request.add_generation_prompt = c.at("add_generation_prompt").as_bool();
    g.text = std::string(c.at("text").as_string());
    for (const auto& id : c.at("ids").as_array())
      g.ids.push_back(static_cast<token_id>(id.as_int64()));
    cases.push_back(std::move(g));
  }
  return cases;
}

// The template and special tokens straight from tokenizer_config.json, so the text check
// does not depend on the tokenizer implementation.
struct config_template {
  std::string source;
  special_tokens specials;
};

config_template load_config(const std::string& family) {
  const auto cfg =
      read_json(testing::tokenizers_dir() / family / "tokenizer_config.json").as_object();
  config_template t;
  t.source = std::string(cfg.at("chat_template").as_string());
  auto token = [&](const char* key) -> std::optional<std::string> {
    const auto* v = cfg.if_contains(key);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return std::string(v->as_string());
  };
  t.specials.bos_token = token("bos_token");
  t.specials.eos_token = token("eos_token");
  t.specials.pad_token = token("pad_token");
  t.specials.unk_token = token("unk_token");
  return t;
}

class chat_golden : public ::testing::TestWithParam<std::string> {};

TEST_P(chat_golden, RendersExactlyTheTextOfTransformers) {
  const auto cfg = load_config(GetParam());
  auto tmpl = chat_template::compile(cfg.source);
  ASSERT_TRUE(tmpl.ok()) << tmpl.err().message;
  const auto cases = load_cases(GetParam());
  ASSERT_FALSE(cases.empty());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    chat_request r = cases[i].request;
    r.specials = cfg.specials;
    auto text = tmpl->render(r);
    ASSERT_TRUE(text.ok()) << "case " << i << ": " << text.err().message;
    EXPECT_EQ(*text, cases[i].text) << "case " << i;
  }
}

TEST_P(chat_golden, EncodesExactlyTheIdsOfTransformers) {
  auto tok = tokenizer::load(testing::tokenizers_dir() / GetParam());
  ASSERT_TRUE(tok.ok()) << tok.err().message;
  auto tmpl = chat_template::for_tokenizer(**tok);
  ASSERT_TRUE(tmpl.ok()) << tmpl.err().message;
  const auto cases = load_cases(GetParam());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    chat_request r = cases[i].request;
    r.specials = (*tok)->specials();
    auto text = tmpl->render(r);
    ASSERT_TRUE(text.ok()) << "case " << i << ": " << text.err().message;
    EXPECT_EQ(*text, cases[i].text) << "case " << i;
    EXPECT_EQ(encode_chat(**tok, *text), cases[i].ids) << "case " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(hf, chat_golden, ::testing::Values("llama3", "qwen3"));

TEST(chat_default, ATokenizerWithoutTemplateGetsChatML) {
  auto tok = tokenizer::load(testing::tokenizers_dir() / "llama2");
  ASSERT_TRUE(tok.ok()) << tok.err().message;
  ASSERT_FALSE((*tok)->chat_template().has_value());
  auto tmpl = chat_template::for_tokenizer(**tok);
  ASSERT_TRUE(tmpl.ok()) << tmpl.err().message;
  EXPECT_EQ(tmpl->source(), chat_template::default_source());
  chat_request r;
  r.messages = boost::json::parse(R"([{"role": "user", "content": "Hi"}])").as_array();
  r.add_generation_prompt = true;
  r.specials = (*tok)->specials();
  auto text = tmpl->render(r);
  ASSERT_TRUE(text.ok()) << text.err().message;
  EXPECT_EQ(*text, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
}

}  // namespace
}  // namespace pagedserve
