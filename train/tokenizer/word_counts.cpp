#include "train/tokenizer/word_counts.h"

#include <fstream>

#include "runtime/tokenizer/utf8.h"

namespace pagedserve::train {

void word_counter::add_text(std::string_view text) {
  if (text.empty()) return;
  num_bytes_ += text.size();
  pieces_.clear();
  pieces_.push_back({utf8::is_valid(text) ? std::string(text) : utf8::sanitize(text), true});
  pre_.pre_tokenize(pieces_, scratch_);
  for (pre_token& piece : pieces_) {
    ++counts_[std::move(piece.text)];
    ++num_words_;
  }
}

status word_counter::add_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(error_code::not_found, "cannot open " + path.string());
  std::string line;
  while (std::getline(in, line)) {
    if (!in.eof()) line += '\n';
    add_text(line);
  }
  if (in.bad()) return make_error(error_code::io_error, "cannot read " + path.string());
  return status::success();
}

}  // namespace pagedserve::train
