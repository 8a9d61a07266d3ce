#pragma once
// unigram_baseline: the perplexity a model without context gets on the same scored tokens:
// p(token) = (count in a training text + 1) / (tokens counted + vocabulary), add-one
// smoothing so an unseen token keeps a finite cost. `pagedserve eval --unigram-from FILE`
// reports it beside the model's: the floor a trained model must clear by far.

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::eval {

class unigram_baseline {
 public:
  // Counts the tokens of every line of `text_file`, encoded without special tokens.
  [[nodiscard]] static result<unigram_baseline> from_text_file(
      const std::filesystem::path& text_file, const tokenizer& tok, std::int64_t vocab_size);
  // From counts directly (tests).
  explicit unigram_baseline(std::vector<std::uint64_t> counts);

  // Mean negative log-likelihood (nats) of every token after the first of each line.
  [[nodiscard]] double mean_nll(std::span<const std::vector<token_id>> lines) const;
  [[nodiscard]] std::uint64_t num_counted() const { return num_counted_; }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t num_counted_ = 0;
};

}  // namespace pagedserve::eval
