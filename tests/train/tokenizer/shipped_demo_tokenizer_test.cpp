// The tokenizer shipped in models/pagedserve-demo, on the demo corpus's held-out text (made by
// the CTest fixture demo_corpus: scripts/prepare-demo-corpus.sh into the build tree):
//   - every held-out line encodes and decodes back to itself;
//   - the engine's loader encodes it as the file's merges applied greedily by rank, read
//     from tokenizer.json here with a JSON parser (reference_bpe.h);
//   - training again on the corpus makes the same files, so the shipped ones are reproducible
//     (docs/demo-corpus.md says how to retrain).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "runtime/tokenizer/tokenizer.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_paths.h"
#include "tests/train/tokenizer/reference_bpe.h"
#include "train/tokenizer/bpe_trainer.h"
#include "train/tokenizer/hf_tokenizer_files.h"
#include "train/tokenizer/llama3_pre_tokenizer.h"
#include "train/tokenizer/word_counts.h"

namespace pagedserve::train {
namespace {

const std::filesystem::path shipped_dir =
    pagedserve::testing::source_dir() / "models" / "pagedserve-demo";
const std::filesystem::path corpus_dir = pagedserve::testing::demo_corpus_dir();  // empty: no npm

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Each line with its newline, as the trainer reads it.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, stop - start));
    start = stop;
  }
  return lines;
}

class ShippedDemoTokenizer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (corpus_dir.empty()) GTEST_SKIP() << "npm or node not found: no demo corpus to test on";
    ASSERT_TRUE(std::filesystem::exists(corpus_dir / "text" / "heldout.txt"))
        << "the fixture demo_corpus did not prepare " << corpus_dir;
    auto tok = tokenizer::load(shipped_dir);
    ASSERT_TRUE(tok) << tok.err().message;
    tok_ = std::move(*tok);
    heldout_ = lines_of(read_file(corpus_dir / "text" / "heldout.txt"));
    ASSERT_GT(heldout_.size(), 500u);
  }

  std::shared_ptr<const tokenizer> tok_;
  std::vector<std::string> heldout_;
};

TEST_F(ShippedDemoTokenizer, HeldOutTextRoundTripsExactly) {
  std::size_t num_bytes = 0;
  std::size_t num_tokens = 0;
  for (const auto& line : heldout_) {
    const auto ids = tok_->encode(line, false);
    ASSERT_EQ(tok_->decode(ids, false), line);
    num_bytes += line.size();
    num_tokens += ids.size();
  }
  // Byte-level BPE with 4,091 tokens learned on this corpus compresses English to more than
  // 3 bytes per token (a bare byte tokenizer: 1).
  EXPECT_GT(static_cast<double>(num_bytes) / static_cast<double>(num_tokens), 3.0);
}

TEST_F(ShippedDemoTokenizer, EncodesAsItsMergesAppliedGreedilyByRank) {
  const auto json = boost::json::parse(read_file(shipped_dir / "tokenizer.json"));
  const auto& model = json.at("model").as_object();
  const auto& vocab = model.at("vocab").as_object();
  auto id_of = [&](std::string_view token) { return static_cast<int>(vocab.at(token).as_int64()); };
  testing::ranked_merges merges;
  for (const auto& merge : model.at("merges").as_array()) {
    const std::string left(merge.at(0).as_string());
    const std::string right(merge.at(1).as_string());
    merges.add(id_of(left), id_of(right), id_of(left + right));
  }
  for (const auto& line : heldout_) {
    const auto ids = tok_->encode(line, false);
    ASSERT_EQ(std::vector<int>(ids.begin(), ids.end()), testing::reference_encode(line, merges))
        << line;
  }
}

TEST_F(ShippedDemoTokenizer, IsWhatTrainingOnTheCorpusMakes) {
  auto pre = make_llama3_pre_tokenizer();
  ASSERT_TRUE(pre);
  word_counter counter(**pre);
  ASSERT_TRUE(counter.add_file(corpus_dir / "text" / "train.txt"));
  testing::temp_dir out("pagedserve-retrained-tokenizer");
  const auto config = boost::json::parse(read_file(shipped_dir / "tokenizer_config.json"));
  const auto vocab = train_bpe(counter.counts(), 4096 - 5);
  ASSERT_TRUE(write_tokenizer_files(out.path(), vocab, config.at("model_max_length").as_int64()));
  for (const char* name : {"tokenizer.json", "tokenizer_config.json"}) {
    EXPECT_TRUE(read_file(out / name) == read_file(shipped_dir / name))
        << name << " differs from a fresh training run: retrain it (docs/demo-corpus.md)";
  }
}

}  // namespace
}  // namespace pagedserve::train
