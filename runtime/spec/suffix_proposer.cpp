#include "runtime/spec/suffix_proposer.h"

#include <algorithm>
#include <map>

namespace pagedserve::spec {
namespace {

constexpr token_id k_separator = -1;

// The sequence's own tokens, as a text of absolute positions from 0.
struct own_text {
  std::span<const token_id> tokens;
  [[nodiscard]] token_id operator[](std::uint64_t i) const { return tokens[i]; }
};
struct buffer_text {
  const std::deque<token_id>* buffer;
  [[nodiscard]] token_id operator[](std::uint64_t i) const { return (*buffer)[i]; }
};

}  // namespace

template <class Text>
suffix_proposer::match suffix_proposer::longest_matches(const Text& text, std::uint64_t base,
                                                        std::span<const std::uint64_t> positions,
                                                        std::span<const token_id> context) const {
  match best;
  for (const std::uint64_t p : positions) {
    if (p < base) continue;
    const std::uint64_t i = p - base;
    std::uint32_t length = 0;
    while (length < options_.max_depth && length < context.size() && length <= i) {
      const token_id t = text[i - length];
      if (t == k_separator || t != context[context.size() - 1 - length]) break;
      ++length;
    }
    if (length == 0 || length < best.length) continue;
    if (length > best.length) {
      best.length = length;
      best.starts.clear();
    }
    best.starts.push_back(p + 1);
  }
  return best;
}

template <class Text>
void suffix_proposer::walk(const Text& text, std::uint64_t base, std::uint64_t end, match& m,
                           std::uint32_t max_tokens, std::vector<token_id>& out) const {
  std::vector<std::uint64_t>& at = m.starts;
  std::map<token_id, std::uint32_t> counts;
  while (out.size() < max_tokens && !at.empty()) {
    counts.clear();
    for (const std::uint64_t q : at) {
      if (q < end && text[q - base] != k_separator) ++counts[text[q - base]];
    }
    if (counts.empty()) return;
    const auto best =
        std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
          return a.second < b.second;  // the lowest id among equals (map order)
        });
    if (static_cast<float>(best->second) <
        options_.min_token_prob * static_cast<float>(at.size())) {
      return;
    }
    const token_id chosen = best->first;
    out.push_back(chosen);
    std::erase_if(at, [&](std::uint64_t q) { return q >= end || text[q - base] != chosen; });
    for (std::uint64_t& q : at) ++q;
  }
}

void suffix_proposer::propose(std::span<const token_id> tokens, std::uint32_t max_tokens,
                              std::vector<token_id>& out) {
  out.clear();
  if (max_tokens == 0 || tokens.empty()) return;
  const token_id last = tokens.back();
  // The sequence itself: earlier positions of its last token, most recent first.
  std::vector<std::uint64_t> own;
  for (std::size_t i = tokens.size() - 1; i-- > 0 && own.size() < k_max_candidates;) {
    if (tokens[i] == last) own.push_back(i);
  }
  match mine = longest_matches(own_text{tokens}, 0, own, tokens);
  match theirs;
  if (const auto it = index_.find(last); it != index_.end()) {
    const std::vector<std::uint64_t>& all = it->second;
    const std::size_t take = std::min(all.size(), k_max_candidates);
    theirs = longest_matches(buffer_text{&buffer_}, base_,
                             std::span<const std::uint64_t>(all).last(take), tokens);
  }
  if (mine.length >= theirs.length && mine.length > 0) {
    walk(own_text{tokens}, 0, tokens.size(), mine, max_tokens, out);
  } else if (theirs.length > 0) {
    walk(buffer_text{&buffer_}, base_, base_ + buffer_.size(), theirs, max_tokens, out);
  }
}

void suffix_proposer::add_finished(std::span<const token_id> output) {
  if (options_.max_cached_requests == 0 || output.empty()) return;
  if (output.size() > k_max_cached_tokens_per_output) {
    output = output.last(k_max_cached_tokens_per_output);
  }
  while (lengths_.size() >= options_.max_cached_requests) evict_oldest();
  const std::uint64_t start = base_ + buffer_.size();
  for (std::size_t i = 0; i < output.size(); ++i) {
    buffer_.push_back(output[i]);
    index_[output[i]].push_back(start + i);
  }
  buffer_.push_back(k_separator);
  lengths_.push_back(static_cast<std::uint32_t>(output.size() + 1));
}

void suffix_proposer::evict_oldest() {
  const std::uint32_t length = lengths_.front();
  lengths_.pop_front();
  buffer_.erase(buffer_.begin(), buffer_.begin() + length);
  base_ += length;
  // Positions below base_ are skipped by lookups; once as many outputs as the store holds
  // have gone, the index is rebuilt so its size stays bounded by the buffer's.
  if (++evicted_since_rebuild_ >= options_.max_cached_requests) rebuild_index();
}

void suffix_proposer::rebuild_index() {
  index_.clear();
  for (std::uint64_t i = 0; i < buffer_.size(); ++i) {
    if (buffer_[i] != k_separator) index_[buffer_[i]].push_back(base_ + i);
  }
  evicted_since_rebuild_ = 0;
}

}  // namespace pagedserve::spec
