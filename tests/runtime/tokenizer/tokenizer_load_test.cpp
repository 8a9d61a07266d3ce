// Loading: unsupported components are errors naming them; tokenizer_config.json fields; and
// small hand-made tokenizer.json files for options the real tokenizers do not use. Expected
// ids follow the HF tokenizers semantics of each option (documented next to each case).

#include <unistd.h>
#include <filesystem>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/runtime/tokenizer/test_tokenizers.h"

namespace pagedserve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ids = std::vector<token_id>;

// Vocabulary ids: a=0 b=1 c=2 ' '=3 ab=4 abc=5 'a '=6 ' b'=7 <unk>=8 ▁=9 ▁b=10.
constexpr std::string_view base_model = R"({"type": "BPE", "unk_token": UNK, "fuse_unk": FUSE,
  "ignore_merges": IGNORE,
  "vocab": {"a": 0, "b": 1, "c": 2, " ": 3, "ab": 4, "abc": 5, "a ": 6, " b": 7, "<unk>": 8,
            "\u2581": 9, "\u2581b": 10},
  "merges": [["a", "b"], ["a", " "], [" ", "b"], ["\u2581", "b"]]})";

struct spec {
  std::string pre_tokenizer = "null";
  std::string added_tokens = "[]";
  std::string post_processor = "null";
  std::string normalizer = "null";
  std::string decoder = "null";
  std::string unk = "null";
  bool fuse_unk = false;
  bool ignore_merges = false;
  std::string model_type = "BPE";
  std::string config;  // tokenizer_config.json, when not empty

  spec& with(std::string spec::*field, std::string value) {
    this->*field = std::move(value);
    return *this;
  }
  spec& with(bool spec::*field, bool value) {
    this->*field = value;
    return *this;
  }
};

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

result<std::shared_ptr<const tokenizer>> load_spec(const spec& s) {
  static int counter = 0;
  const fs::path dir =
      fs::temp_directory_path() /
      ("pagedserve_tok_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  std::string model = replace_all(std::string(base_model), "UNK", s.unk);
  model = replace_all(model, "FUSE", s.fuse_unk ? "true" : "false");
  model = replace_all(model, "IGNORE", s.ignore_merges ? "true" : "false");
  model = replace_all(model, "\"BPE\"", "\"" + s.model_type + "\"");
  std::ofstream(dir / "tokenizer.json")
      << R"({"version": "1.0", "added_tokens": )" << s.added_tokens << R"(, "normalizer": )"
      << s.normalizer << R"(, "pre_tokenizer": )" << s.pre_tokenizer << R"(, "post_processor": )"
      << s.post_processor << R"(, "decoder": )" << s.decoder << R"(, "model": )" << model << "}";
  if (!s.config.empty()) std::ofstream(dir / "tokenizer_config.json") << s.config;
  auto tok = tokenizer::load(dir);
  fs::remove_all(dir);
  return tok;
}

std::shared_ptr<const tokenizer> must_load(const spec& s) {
  auto tok = load_spec(s);
  EXPECT_TRUE(tok.ok()) << (tok.ok() ? "" : tok.err().message);
  return tok.ok() ? *tok : nullptr;
}

std::string load_error(const spec& s) {
  auto tok = load_spec(s);
  return tok.ok() ? "loaded" : tok.err().message;
}

TEST(tokenizer_load, UnsupportedComponentsAreNamed) {
  EXPECT_THAT(load_error(spec().with(&spec::pre_tokenizer,
                                     R"({"type": "Digits", "individual_digits": true})")),
              HasSubstr("unsupported pre_tokenizer type 'Digits'"));
  EXPECT_THAT(load_error(spec().with(&spec::normalizer, R"({"type": "Lowercase"})")),
              HasSubstr("unsupported normalizer type 'Lowercase'"));
  EXPECT_THAT(load_error(spec().with(&spec::post_processor, R"({"type": "BertProcessing"})")),
              HasSubstr("unsupported post_processor type 'BertProcessing'"));
  EXPECT_THAT(load_error(spec().with(&spec::decoder, R"({"type": "WordPiece"})")),
              HasSubstr("unsupported decoder type 'WordPiece'"));
  EXPECT_THAT(load_error(spec().with(&spec::model_type, "WordPiece")),
              HasSubstr("unsupported model type 'WordPiece'"));
}

TEST(tokenizer_load, MissingFolderIsNotFound) {
  auto tok = tokenizer::load("/nonexistent/pagedserve/tokenizer");
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.err().code, error_code::not_found);
}

TEST(tokenizer_load, ConfigTokensMayBeObjectsAndTemplatesAList) {
  const auto tok =
      must_load(spec().with(&spec::config, R"({"bos_token": {"content": "<s>", "lstrip": false},
      "eos_token": "</s>", "pad_token": null,
      "chat_template": [{"name": "tool_use", "template": "T"},
                        {"name": "default", "template": "D"}]})"));
  ASSERT_TRUE(tok);
  EXPECT_EQ(tok->specials().bos_token, "<s>");
  EXPECT_EQ(tok->specials().eos_token, "</s>");
  EXPECT_FALSE(tok->specials().pad_token.has_value());
  EXPECT_EQ(tok->chat_template(), "D");
}

TEST(tokenizer_load, RealConfigs) {
  const auto llama3 = testing::family_tokenizer("llama3");
  EXPECT_EQ(llama3->specials().bos_token, "<|begin_of_text|>");
  EXPECT_EQ(llama3->specials().eos_token, "<|end_of_text|>");
  ASSERT_TRUE(llama3->chat_template().has_value());
  EXPECT_THAT(*llama3->chat_template(), HasSubstr("<|start_header_id|>"));
  EXPECT_EQ(llama3->vocab_size(), 128256u);
  EXPECT_EQ(llama3->token_to_id("<|eot_id|>"), 128009);
  EXPECT_TRUE(llama3->is_special(128009));
  EXPECT_EQ(llama3->id_to_token(128009), "<|eot_id|>");

  const auto qwen3 = testing::family_tokenizer("qwen3");
  EXPECT_FALSE(qwen3->specials().bos_token.has_value());
  EXPECT_EQ(qwen3->specials().eos_token, "<|im_end|>");
  EXPECT_EQ(qwen3->specials().pad_token, "<|endoftext|>");
  EXPECT_EQ(qwen3->vocab_size(), 151669u);
  EXPECT_FALSE(qwen3->is_special(*qwen3->token_to_id("<tool_call>")));  // added, not special

  const auto llama2 = testing::family_tokenizer("llama2");
  EXPECT_FALSE(llama2->chat_template().has_value());
  EXPECT_EQ(llama2->specials().unk_token, "<unk>");
  EXPECT_EQ(llama2->vocab_size(), 32000u);
  EXPECT_EQ(llama2->id_to_token(13), "<0x0A>");
}

std::string split(std::string_view pattern, std::string_view behavior, bool invert = false) {
  return R"({"type": "Split", "pattern": )" + std::string(pattern) + R"(, "behavior": ")" +
         std::string(behavior) + R"(", "invert": )" + (invert ? "true" : "false") + "}";
}

TEST(tokenizer_behaviour, SplitBehaviours) {
  // "a b": matches of " " are the delimiters.
  const std::string space = R"({"String": " "})";
  EXPECT_EQ(
      must_load(spec().with(&spec::pre_tokenizer, split(space, "Isolated")))->encode("a b", false),
      (ids{0, 3, 1}));
  EXPECT_EQ(
      must_load(spec().with(&spec::pre_tokenizer, split(space, "Removed")))->encode("a b", false),
      (ids{0, 1}));
  EXPECT_EQ(must_load(spec().with(&spec::pre_tokenizer, split(space, "MergedWithPrevious")))
                ->encode("a b", false),
            (ids{6, 1}));
  EXPECT_EQ(must_load(spec().with(&spec::pre_tokenizer, split(space, "MergedWithNext")))
                ->encode("a b", false),
            (ids{0, 7}));
  // Contiguous: "aab" -> "aa" | "b"; no merge joins a with a.
  EXPECT_EQ(must_load(spec().with(&spec::pre_tokenizer, split(R"({"String": "a"})", "Contiguous")))
                ->encode("aab", false),
            (ids{0, 0, 1}));
  // invert: the words become the delimiters' complement, so Removed drops the spaces.
  EXPECT_EQ(
      must_load(spec().with(&spec::pre_tokenizer, split(R"({"Regex": "\\w+"})", "Removed", true)))
          ->encode("ab c", false),
      (ids{4, 2}));
}

TEST(tokenizer_behaviour, AddedTokenStripAndSingleWord) {
  const auto strip =
      must_load(spec()
                    .with(&spec::pre_tokenizer, split(R"({"String": " "})", "Removed"))
                    .with(&spec::added_tokens, R"([{"id": 11, "content": "<m>", "special": true,
        "lstrip": true, "rstrip": true, "single_word": false, "normalized": false}])"));
  EXPECT_EQ(strip->encode("a  <m>  b", false), (ids{0, 11, 1}));
  const auto single =
      must_load(spec().with(&spec::added_tokens, R"([{"id": 12, "content": "c", "special": false,
        "lstrip": false, "rstrip": false, "single_word": true, "normalized": false}])"));
  EXPECT_EQ(single->encode("ab c", false), (ids{4, 3, 12}));  // "c" stands alone
  EXPECT_EQ(single->encode("abc", false),
            (ids{4, 2}));  // inside a word: plain BPE (no "ab c" merge)
}

TEST(tokenizer_behaviour, UnknownCharactersAndFuseUnk) {
  EXPECT_EQ(must_load(spec().with(&spec::unk, R"("<unk>")"))->encode("azzb", false),
            (ids{0, 8, 8, 1}));
  EXPECT_EQ(must_load(spec().with(&spec::unk, R"("<unk>")").with(&spec::fuse_unk, true))
                ->encode("azzb", false),
            (ids{0, 8, 1}));
  EXPECT_EQ(must_load(spec())->encode("azzb", false), (ids{4}));  // no unk: dropped, as HF
}

TEST(tokenizer_behaviour, IgnoreMergesTakesWholeWordsFromTheVocab) {
  EXPECT_EQ(must_load(spec().with(&spec::ignore_merges, true))->encode("abc", false), (ids{5}));
  EXPECT_EQ(must_load(spec())->encode("abc", false), (ids{4, 2}));  // no "ab c" merge
}

TEST(tokenizer_behaviour, MetaspacePrependsOnlyAtTheStartForSchemeFirst) {
  const std::string metaspace =
      R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": true})";
  const std::string added = R"([{"id": 11, "content": "<m>", "special": true, "lstrip": false,
      "rstrip": false, "single_word": false, "normalized": false}])";
  const auto tok =
      must_load(spec().with(&spec::pre_tokenizer, metaspace).with(&spec::added_tokens, added));
  EXPECT_EQ(tok->encode("b", false), (ids{10}));              // "▁b"
  EXPECT_EQ(tok->encode("<m>b", false), (ids{11, 1}));        // not at the start: no "▁"
  EXPECT_EQ(tok->encode("<m>a b", false), (ids{11, 0, 10}));  // "a" | "▁b"
}

TEST(tokenizer_behaviour, TemplateProcessingAddsSpecialTokens) {
  const auto tok = must_load(spec().with(&spec::post_processor, R"({"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A",
                 "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
      "pair": [], "special_tokens": {"<s>": {"id": "<s>", "ids": [9], "tokens": ["<s>"]},
                                     "</s>": {"id": "</s>", "ids": [8], "tokens": ["</s>"]}}})"));
  EXPECT_EQ(tok->encode("ab", true), (ids{9, 4, 8}));
  EXPECT_EQ(tok->encode("ab", false), (ids{4}));
}

}  // namespace
}  // namespace pagedserve
