#include "runtime/eval/unigram_baseline.h"

#include <cmath>
#include <fstream>
#include <string>

namespace pagedserve::eval {

unigram_baseline::unigram_baseline(std::vector<std::uint64_t> counts) : counts_(std::move(counts)) {
  for (std::uint64_t c : counts_) num_counted_ += c;
}

result<unigram_baseline> unigram_baseline::from_text_file(const std::filesystem::path& text_file,
                                                          const tokenizer& tok,
                                                          std::int64_t vocab_size) {
  std::ifstream in(text_file);
  if (!in) return make_error(error_code::not_found, "cannot open " + text_file.string());
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(vocab_size), 0);
  std::string line;
  while (std::getline(in, line)) {
    for (token_id id : tok.encode(line, false)) {
      if (id < 0 || id >= vocab_size) {
        return make_error(error_code::invalid_argument,
                          text_file.string() + ": the tokenizer gave id " + std::to_string(id) +
                              ", outside the model's vocabulary");
      }
      ++counts[static_cast<std::size_t>(id)];
    }
  }
  return unigram_baseline(std::move(counts));
}

double unigram_baseline::mean_nll(std::span<const std::vector<token_id>> lines) const {
  const double denominator = static_cast<double>(num_counted_ + counts_.size());
  double nll = 0.0;
  std::uint64_t scored = 0;
  for (const std::vector<token_id>& ids : lines) {
    for (std::size_t i = 1; i < ids.size(); ++i) {
      const double count = static_cast<double>(counts_[static_cast<std::size_t>(ids[i])]) + 1.0;
      nll -= std::log(count / denominator);
      ++scored;
    }
  }
  return scored == 0 ? 0.0 : nll / static_cast<double>(scored);
}

}  // namespace pagedserve::eval
