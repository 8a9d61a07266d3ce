// The merge loop of bpe_model (HF bpe::Word::merge_all): lowest rank first, ties to the
// leftmost pair; queue entries made stale by an earlier merge are skipped when popped.

#include <queue>

#include "runtime/tokenizer/bpe_model.h"
#include "runtime/tokenizer/utf8.h"

namespace pagedserve {

namespace {

struct symbol {
  token_id id;
  std::int32_t prev;  // index of the previous live symbol, or -1 at the start
  std::int32_t next;  // index of the next live symbol, or size() at the end
  std::uint32_t len;  // bytes covered; 0 marks a symbol merged into its left neighbour
};

struct candidate {
  std::uint32_t rank;
  std::int32_t pos;
  token_id new_id;
  // std::priority_queue pops the largest: lower rank first, then the leftmost position.
  bool operator<(const candidate& other) const {
    if (rank != other.rank) return rank > other.rank;
    return pos > other.pos;
  }
};

}  // namespace

void bpe_model::initial_symbols(std::string_view word, std::vector<token_id>& ids,
                                std::vector<std::uint32_t>& lens) const {
  std::optional<std::pair<token_id, std::uint32_t>> pending_unk;
  std::string buffer;
  std::size_t pos = 0;
  while (pos < word.size()) {
    const std::size_t n =
        std::min(utf8::char_length(static_cast<unsigned char>(word[pos])), word.size() - pos);
    const bool is_first = pos == 0;
    const bool is_last = pos + n == word.size();
    std::string_view piece = word.substr(pos, n);
    if ((!is_first && !continuing_subword_prefix_.empty()) ||
        (is_last && !end_of_word_suffix_.empty())) {
      buffer.clear();
      if (!is_first) buffer += continuing_subword_prefix_;
      buffer += piece;
      if (is_last) buffer += end_of_word_suffix_;
      piece = buffer;
    }
    pos += n;
    if (const auto id = vocab_.find(piece)) {
      if (pending_unk) {
        ids.push_back(pending_unk->first);
        lens.push_back(pending_unk->second);
        pending_unk.reset();
      }
      ids.push_back(*id);
      lens.push_back(static_cast<std::uint32_t>(n));
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (const char c : piece) all = all && byte_tokens_[static_cast<unsigned char>(c)];
      if (all) {
        // As HF: byte tokens go out before a pending unk is flushed.
        for (const char c : piece) {
          ids.push_back(*byte_tokens_[static_cast<unsigned char>(c)]);
          lens.push_back(1);
        }
        continue;
      }
    }
    if (!unk_) continue;  // no unk token: HF drops the character
    if (pending_unk && fuse_unk_) {
      pending_unk->second += static_cast<std::uint32_t>(n);
    } else {
      if (pending_unk) {
        ids.push_back(pending_unk->first);
        lens.push_back(pending_unk->second);
      }
      pending_unk = std::pair{*unk_, static_cast<std::uint32_t>(n)};
    }
  }
  if (pending_unk) {
    ids.push_back(pending_unk->first);
    lens.push_back(pending_unk->second);
  }
}

void bpe_model::merge_word(std::string_view word, std::vector<token_id>& out) const {
  std::vector<token_id> ids;
  std::vector<std::uint32_t> lens;
  initial_symbols(word, ids, lens);
  const auto count = static_cast<std::int32_t>(ids.size());
  std::vector<symbol> symbols(ids.size());
  for (std::int32_t i = 0; i < count; ++i) {
    symbols[static_cast<std::size_t>(i)] = {ids[static_cast<std::size_t>(i)], i - 1, i + 1,
                                            lens[static_cast<std::size_t>(i)]};
  }
  using merge = merge_table::merge;
  auto lookup = [&](std::int32_t left, std::int32_t right) -> const merge* {
    return merges_.find(merge_table::key_of(symbols[static_cast<std::size_t>(left)].id,
                                            symbols[static_cast<std::size_t>(right)].id));
  };
  std::priority_queue<candidate> queue;
  for (std::int32_t i = 0; i + 1 < count; ++i) {
    if (const merge* m = lookup(i, i + 1)) queue.push({m->rank, i, m->new_id});
  }
  while (!queue.empty()) {
    const candidate top = queue.top();
    queue.pop();
    symbol& left = symbols[static_cast<std::size_t>(top.pos)];
    if (left.len == 0 || left.next >= count) continue;
    const std::int32_t right_pos = left.next;
    const merge* current = lookup(top.pos, right_pos);
    if (current == nullptr || current->new_id != top.new_id) continue;  // stale entry
    symbol& right = symbols[static_cast<std::size_t>(right_pos)];
    left.id = top.new_id;
    left.len += right.len;
    left.next = right.next;
    right.len = 0;
    if (right.next < count) symbols[static_cast<std::size_t>(right.next)].prev = top.pos;
    if (left.prev >= 0) {
      if (const merge* m = lookup(left.prev, top.pos)) queue.push({m->rank, left.prev, m->new_id});
    }
    if (left.next < count) {
      if (const merge* m = lookup(top.pos, left.next)) queue.push({m->rank, top.pos, m->new_id});
    }
  }
  for (const symbol& s : symbols) {
    if (s.len != 0) out.push_back(s.id);
  }
}

}  // namespace pagedserve
