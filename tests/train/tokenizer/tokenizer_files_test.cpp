// The files write_tokenizer_files makes, loaded by the engine's own loader (runtime/tokenizer):
// encoding agrees with the trained merges applied greedily by rank (reference_bpe.h), decoding
// gives the text back, the specials and the byte tokens have the ids of the documented layout,
// and the components are Llama 3's.

#include "train/tokenizer/hf_tokenizer_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "runtime/chat/chat_template.h"
#include "runtime/tokenizer/tokenizer.h"
#include "tests/support/fixtures.h"
#include "tests/support/temp_dir.h"
#include "tests/train/tokenizer/reference_bpe.h"
#include "train/tokenizer/llama3_pre_tokenizer.h"
#include "train/tokenizer/word_counts.h"

namespace pagedserve::train {
namespace {

// Training text: ASCII English with the cases the pre-tokenizer treats apart (contractions,
// numbers, punctuation runs, newlines, runs of spaces).
const std::vector<std::string> training_lines = {
    "The Fulton County Grand Jury said Friday an investigation of recent elections produced "
    "\"no evidence\" that any irregularities took place.\n",
    "The jury further said that the City Executive Committee, which had over-all charge of the "
    "election, deserves the praise and thanks of the City.\n",
    "It's 1961; they'll vote again in 1962 -- or so they've said... Won't they?\n",
    "    Indented lines, tabs\tand  double  spaces stay as they are.\n",
    "Numbers: 3.14159, 2,718, 100%, $4,500 and 12345678.\n",
    "\n",
    "She said, \"I'm here; I'd rather stay.\" He didn't answer!\n",
    "the the the then there these they them their theirs thee\n",
};

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line;
  return text;
}

boost::json::value read_json(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return boost::json::parse(buffer.str());
}

class TokenizerFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pre = make_llama3_pre_tokenizer();
    ASSERT_TRUE(pre);
    word_counter counter(**pre);
    for (const auto& line : training_lines) counter.add_text(line);
    vocab_ = train_bpe(counter.counts(), 400);
    ASSERT_EQ(vocab_.tokens.size(), 400u);
    for (const bpe_merge& m : vocab_.merges) merges_.add(m.pair.left, m.pair.right, m.merged);
    ASSERT_TRUE(write_tokenizer_files(dir_.path(), vocab_, 512));
    auto tok = tokenizer::load(dir_.path());
    ASSERT_TRUE(tok) << tok.err().message;
    tok_ = std::move(*tok);
  }

  [[nodiscard]] token_id special(std::size_t i) const { return static_cast<token_id>(400 + i); }

  testing::temp_dir dir_{"pagedserve-tokenizer-files"};
  bpe_vocabulary vocab_;
  testing::ranked_merges merges_;
  std::shared_ptr<const tokenizer> tok_;
};

TEST_F(TokenizerFiles, EncodesAsTheMergesAppliedGreedilyByRank) {
  for (const auto& line : training_lines) {
    const auto ids = tok_->encode(line, false);
    const auto expected = testing::reference_encode(line, merges_);
    EXPECT_EQ(std::vector<int>(ids.begin(), ids.end()), expected) << line;
  }
  const std::string unseen = "Thereafter the jurors' 2,000 questions -- unanswered -- remain.\n";
  const auto ids = tok_->encode(unseen, false);
  EXPECT_EQ(std::vector<int>(ids.begin(), ids.end()), testing::reference_encode(unseen, merges_));
}

TEST_F(TokenizerFiles, DecodesBackToTheText) {
  const std::string text = joined(training_lines);
  EXPECT_EQ(tok_->decode(tok_->encode(text, false), false), text);
  const std::string unicode =
      "Caf\xC3\xA9 na\xC3\xAFve \xE2\x80\x94 \xE6\x9D\xB1\xE4\xBA\xAC \xF0\x9F\x99\x82\n";
  EXPECT_EQ(tok_->decode(tok_->encode(unicode, false), false), unicode);
}

TEST_F(TokenizerFiles, ByteTokensComeFirstInByteOrder) {
  for (int b = 0; b < 256; ++b) {
    EXPECT_EQ(tok_->token_to_id(testing::gpt2_byte_char(static_cast<unsigned char>(b))), b);
  }
}

TEST_F(TokenizerFiles, SpecialTokensComeLast) {
  const std::vector<std::string> names = {"<|begin_of_text|>", "<|end_of_text|>",
                                          "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"};
  EXPECT_EQ(tok_->vocab_size(), 405u);
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(tok_->token_to_id(names[i]), special(i)) << names[i];
    EXPECT_TRUE(tok_->is_special(special(i)));
    EXPECT_EQ(tok_->encode(names[i], false), std::vector<token_id>{special(i)});
  }
  EXPECT_EQ(tok_->specials().bos_token, "<|begin_of_text|>");
  EXPECT_EQ(tok_->specials().eos_token, "<|eot_id|>");
}

TEST_F(TokenizerFiles, AddingSpecialTokensPutsBosFirst) {
  const auto plain = tok_->encode("the jury", false);
  auto with_bos = std::vector<token_id>{special(0)};
  with_bos.insert(with_bos.end(), plain.begin(), plain.end());
  EXPECT_EQ(tok_->encode("the jury", true), with_bos);
  EXPECT_EQ(tok_->decode(with_bos, true), "the jury");
}

TEST_F(TokenizerFiles, ComponentsAreLlama3s) {
  const auto ours = read_json(dir_ / "tokenizer.json").as_object();
  const auto llama3 =
      read_json(pagedserve::testing::tokenizers_dir() / "llama3" / "tokenizer.json");
  const auto& theirs = llama3.as_object();
  EXPECT_EQ(ours.at("version"), theirs.at("version"));
  EXPECT_EQ(ours.at("normalizer"), theirs.at("normalizer"));
  EXPECT_EQ(ours.at("pre_tokenizer"), theirs.at("pre_tokenizer"));
  EXPECT_EQ(ours.at("decoder"), theirs.at("decoder"));
  // This copy of Llama 3 has the ByteLevel post-processor alone; Llama 3 Instruct's adds the
  // BOS template after it.
  EXPECT_EQ(ours.at("post_processor").at("processors").at(0), theirs.at("post_processor"));
  const auto& model = ours.at("model").as_object();
  EXPECT_EQ(model.at("type").as_string(), "BPE");
  EXPECT_FALSE(model.at("byte_fallback").as_bool());
  EXPECT_FALSE(model.at("ignore_merges").as_bool());
  EXPECT_EQ(model.at("vocab").as_object().size(), 400u);
  EXPECT_EQ(model.at("merges").as_array().size(), vocab_.merges.size());
}

TEST_F(TokenizerFiles, ChatTemplateRendersLlama3Turns) {
  auto tmpl = chat_template::for_tokenizer(*tok_);
  ASSERT_TRUE(tmpl) << tmpl.err().message;
  chat_request request;
  request.messages = boost::json::parse(
                         R"([{"role": "user", "content": "  Continue the story: He left. "},
                             {"role": "assistant", "content": "She stayed."}])")
                         .as_array();
  request.add_generation_prompt = true;
  request.specials = tok_->specials();
  auto text = tmpl->render(request);
  ASSERT_TRUE(text) << text.err().message;
  EXPECT_EQ(*text,
            "<|begin_of_text|>"
            "<|start_header_id|>user<|end_header_id|>\n\nContinue the story: He left.<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\nShe stayed.<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
  // The specials in the rendered text are single ids; the generation prompt ends in "\n\n".
  const auto ids = encode_chat(*tok_, *text);
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids[0], special(0));
  EXPECT_EQ(ids[1], special(2));
  EXPECT_EQ(std::count(ids.begin(), ids.end(), special(4)), 2);
  const auto last_header_end = std::find(ids.rbegin(), ids.rend(), special(3)).base();
  EXPECT_EQ(tok_->decode(std::vector<token_id>(last_header_end, ids.end()), false), "\n\n");
}

}  // namespace
}  // namespace pagedserve::train
