// pagedserve-train-tokenizer --input FILE... --vocab-size N --out DIR [--eval FILE...]: trains
// a byte-level BPE tokenizer on text files (docs/demo-corpus.md) and writes DIR/tokenizer.json
// and DIR/tokenizer_config.json. With --eval, encodes those files with the written tokenizer
// (loaded back as the engine loads it) and prints bytes per token.

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "runtime/tokenizer/tokenizer.h"
#include "train/tokenizer/bpe_trainer.h"
#include "train/tokenizer/hf_tokenizer_files.h"
#include "train/tokenizer/llama3_chat_format.h"
#include "train/tokenizer/llama3_pre_tokenizer.h"

namespace {

using namespace pagedserve;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

int fail(const std::string& message) {
  std::fprintf(stderr, "pagedserve-train-tokenizer: %s\n", message.c_str());
  return 1;
}

struct compression {
  std::size_t num_bytes = 0;
  std::size_t num_tokens = 0;
};

// A file encoded line by line (each line with its newline, no BOS).
result<compression> measure(const tokenizer& tok, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(error_code::not_found, "cannot open " + path);
  compression c;
  std::string line;
  while (std::getline(in, line)) {
    if (!in.eof()) line += '\n';
    c.num_bytes += line.size();
    c.num_tokens += tok.encode(line, false).size();
  }
  if (c.num_tokens == 0) return make_error(error_code::invalid_argument, path + " is empty");
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("Train a byte-level BPE tokenizer (Llama 3 layout) on text files",
               "pagedserve-train-tokenizer");
  std::vector<std::string> inputs;
  std::vector<std::string> evals;
  std::size_t vocab_size = 4096;
  std::int64_t model_max_length = 512;
  std::string out_dir;
  app.add_option("--input", inputs, "training text, UTF-8, read line by line")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--vocab-size", vocab_size, "tokens in all: 256 bytes + merges + 5 specials")
      ->capture_default_str()
      ->check(CLI::Range(train::num_byte_tokens + train::special_token_names.size(),
                         std::size_t{1} << 20));
  app.add_option("--out", out_dir, "folder for tokenizer.json and tokenizer_config.json")
      ->required();
  app.add_option("--model-max-length", model_max_length,
                 "model_max_length of tokenizer_config.json (the model's context length)")
      ->capture_default_str();
  app.add_option("--eval", evals, "text files to report bytes per token on")
      ->check(CLI::ExistingFile);
  CLI11_PARSE(app, argc, argv);

  auto pre = train::make_llama3_pre_tokenizer();
  if (!pre) return fail(pre.err().message);
  const auto start = clock_type::now();
  train::word_counter counter(**pre);
  for (const auto& path : inputs) {
    if (auto s = counter.add_file(path); !s) return fail(s.err().message);
  }
  const double count_seconds = seconds_since(start);
  std::printf("counted %llu bytes: %llu pre-tokens, %zu distinct (%.2f s)\n",
              static_cast<unsigned long long>(counter.num_bytes()),
              static_cast<unsigned long long>(counter.num_words()), counter.counts().size(),
              count_seconds);

  const std::size_t num_bpe_tokens = vocab_size - train::special_token_names.size();
  const auto merge_start = clock_type::now();
  const train::bpe_vocabulary vocab = train::train_bpe(counter.counts(), num_bpe_tokens);
  std::printf("merged: %zu merges, %zu tokens + %zu specials (%.2f s; %.2f s in all)\n",
              vocab.merges.size(), vocab.tokens.size(), train::special_token_names.size(),
              seconds_since(merge_start), seconds_since(start));
  if (vocab.tokens.size() < num_bpe_tokens) {
    std::printf("note: the text ran out of pairs; the vocabulary has %zu tokens, not %zu\n",
                vocab.tokens.size() + train::special_token_names.size(), vocab_size);
  }

  if (auto s = train::write_tokenizer_files(out_dir, vocab, model_max_length); !s) {
    return fail(s.err().message);
  }
  std::printf("wrote %s/tokenizer.json and tokenizer_config.json\n", out_dir.c_str());

  if (evals.empty()) return 0;
  auto tok = tokenizer::load(out_dir);
  if (!tok) return fail("the written tokenizer does not load: " + tok.err().message);
  for (const auto& path : evals) {
    auto c = measure(**tok, path);
    if (!c) return fail(c.err().message);
    std::printf("%s: %zu bytes, %zu tokens, %.3f bytes per token\n", path.c_str(), c->num_bytes,
                c->num_tokens,
                static_cast<double>(c->num_bytes) / static_cast<double>(c->num_tokens));
  }
  return 0;
}
