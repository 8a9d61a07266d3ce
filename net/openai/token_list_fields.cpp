#include "net/openai/token_list_fields.h"

#include <string>
#include <string_view>

namespace pagedserve::net {
namespace {

void read_allowed_token_ids(body_reader& reader, const model_context& model, sampling_params& s) {
  const boost::json::array* ids = reader.array("allowed_token_ids");
  if (ids == nullptr) return;
  if (ids->empty()) {
    reader.fail(bad_request("'allowed_token_ids' must not be empty.", "allowed_token_ids"));
    return;
  }
  for (const boost::json::value& v : *ids) {
    const std::optional<std::int64_t> id = integral_value(v);
    if (!id || *id < 0 || *id >= std::int64_t{model.vocab_size}) {
      reader.fail(bad_request("'allowed_token_ids' must hold token ids in [0, " +
                                  std::to_string(model.vocab_size) + "), got " + quote_value(v) +
                                  ".",
                              "allowed_token_ids"));
      return;
    }
    s.allowed_token_ids.push_back(static_cast<token_id>(*id));
  }
}

std::string_view without_leading_spaces(std::string_view word) {
  const std::size_t first = word.find_first_not_of(" \t\n\r\f\v");
  return first == std::string_view::npos ? std::string_view() : word.substr(first);
}

void read_bad_words(body_reader& reader, const model_context& model, sampling_params& s) {
  const boost::json::array* list = reader.array("bad_words");
  if (list == nullptr || list->empty()) return;
  auto refuse = [&](const std::string& why) { reader.fail(bad_request(why, "bad_words")); };
  if (model.tok == nullptr) return refuse("'bad_words' needs a tokenizer; this model has none.");
  if (list->size() > k_max_bad_words) {
    return refuse("'bad_words' may hold at most " + std::to_string(k_max_bad_words) + " words.");
  }
  std::vector<std::string> words;
  for (const boost::json::value& v : *list) {
    if (!v.is_string() || without_leading_spaces(v.get_string()).empty() ||
        v.get_string().size() > k_max_bad_word_bytes) {
      return refuse("'bad_words' must be non-blank strings of at most " +
                    std::to_string(k_max_bad_word_bytes) + " bytes, got " + quote_value(v) + ".");
    }
    words.emplace_back(v.get_string());
  }
  s.bad_words_token_ids = bad_words_token_ids(words, *model.tok);
}

}  // namespace

void read_token_list_fields(body_reader& reader, const model_context& model, sampling_params& s) {
  read_allowed_token_ids(reader, model, s);
  read_bad_words(reader, model, s);
}

std::vector<std::vector<token_id>> bad_words_token_ids(const std::vector<std::string>& words,
                                                       const tokenizer& tok) {
  std::vector<std::vector<token_id>> out;
  for (const std::string& word : words) {
    const std::string bare(without_leading_spaces(word));
    std::vector<token_id> plain = tok.encode(bare, /*add_special_tokens=*/false);
    if (plain.empty()) continue;
    std::vector<token_id> spaced = tok.encode(" " + bare, /*add_special_tokens=*/false);
    const bool distinct =
        !spaced.empty() && spaced.front() != plain.front() && spaced.size() == plain.size();
    out.push_back(std::move(plain));
    if (distinct) out.push_back(std::move(spaced));
  }
  return out;
}

}  // namespace pagedserve::net
