#include "runtime/tokenizer/bpe_model.h"

#include <array>
#include <cstdio>
#include <limits>
#include <queue>

#include <boost/json.hpp>

#include "runtime/tokenizer/json_util.h"
#include "runtime/tokenizer/utf8.h"

namespace pagedserve {

result<std::unique_ptr<bpe_model>> bpe_model::parse(const boost::json::object& model,
                                                    std::int64_t id_limit) {
  const std::string type = json_util::type_of(model);
  if (!type.empty() && type != "BPE") return json_util::unsupported("model", type);
  if (const auto* dropout = model.if_contains("dropout"); dropout && !dropout->is_null()) {
    return make_error(error_code::unsupported, "unsupported BPE option 'dropout'");
  }
  const auto* vocab = model.if_contains("vocab");
  const auto* merges = model.if_contains("merges");
  if (vocab == nullptr || !vocab->is_object() || merges == nullptr || !merges->is_array()) {
    return make_error(error_code::corrupt_data, "BPE model without vocab/merges");
  }
  std::unique_ptr<bpe_model> bpe(new bpe_model());
  bpe->byte_fallback_ = json_util::get_bool(model, "byte_fallback", false);
  bpe->ignore_merges_ = json_util::get_bool(model, "ignore_merges", false);
  bpe->fuse_unk_ = json_util::get_bool(model, "fuse_unk", false);
  bpe->continuing_subword_prefix_ =
      json_util::get_string(model, "continuing_subword_prefix").value_or("");
  bpe->end_of_word_suffix_ = json_util::get_string(model, "end_of_word_suffix").value_or("");
  if (auto s = bpe->parse_vocab(vocab->get_object(), id_limit); !s) return s.err();
  if (auto s = bpe->parse_merges(merges->get_array()); !s) return s.err();
  if (auto unk = json_util::get_string(model, "unk_token")) {
    bpe->unk_ = bpe->token_to_id(*unk);
    if (!bpe->unk_) {
      return make_error(error_code::corrupt_data,
                        "unk_token '" + *unk + "' is not in the vocabulary");
    }
  }
  if (bpe->byte_fallback_) {
    for (int b = 0; b < 256; ++b) {
      char name[8];
      std::snprintf(name, sizeof(name), "<0x%02X>", b);
      bpe->byte_tokens_[static_cast<std::size_t>(b)] = bpe->token_to_id(name);
    }
  }
  return bpe;
}

status bpe_model::parse_vocab(const boost::json::object& vocab, std::int64_t id_limit) {
  // The id bound comes first: id_to_token_ is sized by the largest id.
  std::size_t total = 0;
  token_id max_id = -1;
  for (const auto& entry : vocab) {
    const boost::json::value& id = entry.value();
    if (!id.is_int64() || id.get_int64() < 0 || id.get_int64() >= id_limit) {
      return make_error(error_code::corrupt_data,
                        "model.vocab: token '" + std::string(entry.key().substr(0, 64)) +
                            "' has id " + boost::json::serialize(id) + ", outside [0, " +
                            std::to_string(id_limit) + ")");
    }
    total += entry.key().size();
    max_id = std::max(max_id, static_cast<token_id>(id.get_int64()));
  }
  arena_.reserve(total);
  id_to_token_.resize(static_cast<std::size_t>(max_id + 1));
  for (const auto& entry : vocab) {
    const std::size_t at = arena_.size();
    arena_.append(entry.key());
    id_to_token_[static_cast<std::size_t>(entry.value().get_int64())] =
        std::string_view(arena_.data() + at, entry.key().size());
  }
  vocab_.build(id_to_token_);
  return status::success();
}

status bpe_model::parse_merges(const boost::json::array& merges) {
  std::vector<merge_text> texts;
  texts.reserve(merges.size());
  for (const auto& item : merges) {
    if (item.is_string()) {
      const std::string_view line = item.get_string();
      const std::size_t space = line.find(' ');
      if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos) {
        return make_error(error_code::corrupt_data,
                          "merge '" + std::string(line) + "' is not 'a b'");
      }
      texts.push_back({line.substr(0, space), line.substr(space + 1)});
    } else if (item.is_array() && item.get_array().size() == 2 && item.get_array()[0].is_string() &&
               item.get_array()[1].is_string()) {
      texts.push_back({item.get_array()[0].get_string(), item.get_array()[1].get_string()});
    } else {
      return make_error(error_code::corrupt_data, "malformed merge entry");
    }
  }
  merges_.reserve(texts.size());
  constexpr std::size_t batch = 32;
  for (std::size_t first = 0; first < texts.size(); first += batch) {
    if (auto s = add_merges(texts, first, std::min(batch, texts.size() - first)); !s) return s;
  }
  return status::success();
}

status bpe_model::add_merges(const std::vector<merge_text>& merges, std::size_t first,
                             std::size_t n) {
  // Hash everything first and prefetch the slots, so the cache misses of the batch overlap.
  std::array<std::string, 32> merged;
  std::array<std::uint64_t, 3 * 32> hashes{};
  for (std::size_t i = 0; i < n; ++i) {
    const merge_text& m = merges[first + i];
    const std::string_view tail = m.b.starts_with(continuing_subword_prefix_)
                                      ? m.b.substr(continuing_subword_prefix_.size())
                                      : m.b;
    merged[i].assign(m.a).append(tail);
    hashes[3 * i] = vocab_table::hash(m.a);
    hashes[3 * i + 1] = vocab_table::hash(m.b);
    hashes[3 * i + 2] = vocab_table::hash(merged[i]);
    for (std::size_t k = 0; k < 3; ++k) vocab_.prefetch(hashes[3 * i + k]);
  }
  std::array<merge_table::merge, 32> values{};
  std::array<std::uint64_t, 32> keys{};
  for (std::size_t i = 0; i < n; ++i) {
    const merge_text& m = merges[first + i];
    const auto a = vocab_.find(m.a, hashes[3 * i]);
    const auto b = vocab_.find(m.b, hashes[3 * i + 1]);
    if (!a || !b) {
      return make_error(error_code::corrupt_data, "merge '" + std::string(m.a) + " " +
                                                      std::string(m.b) + "' uses unknown tokens");
    }
    const auto id = vocab_.find(merged[i], hashes[3 * i + 2]);
    if (!id) {
      return make_error(error_code::corrupt_data,
                        "merged token '" + merged[i] + "' is not in the vocabulary");
    }
    keys[i] = merge_table::key_of(*a, *b);
    values[i] = {static_cast<std::uint32_t>(first + i), *id};
    merges_.prefetch(keys[i]);
  }
  // In rank order, so a repeated pair keeps its last rank, as HF's HashMap collect does.
  for (std::size_t i = 0; i < n; ++i) merges_.insert_or_assign(keys[i], values[i]);
  return status::success();
}

std::optional<token_id> bpe_model::token_to_id(std::string_view token) const {
  return vocab_.find(token);
}

std::optional<std::string_view> bpe_model::id_to_token(token_id id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= id_to_token_.size()) return std::nullopt;
  return id_to_token_[static_cast<std::size_t>(id)];
}

void bpe_model::tokenize(std::string_view word, std::vector<token_id>& out) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    if (const auto id = vocab_.find(word)) {
      out.push_back(*id);
      return;
    }
  }
  const bool cacheable = word.size() < max_cached_word_bytes;
  if (cacheable) {
    const std::lock_guard lock(cache_mutex_);
    if (const auto it = cache_.find(word); it != cache_.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const std::size_t first = out.size();
  merge_word(word, out);
  if (cacheable) {
    const std::lock_guard lock(cache_mutex_);
    if (cache_.size() >= cache_capacity) cache_.clear();
    cache_.emplace(std::string(word), std::vector<token_id>(out.begin() + first, out.end()));
  }
}

}  // namespace pagedserve
