#include "runtime/tokenizer/vocab_table.h"

#include <bit>

namespace pagedserve {

void vocab_table::build(const std::vector<std::optional<std::string_view>>& strings) {
  strings_ = &strings;
  num_entries_ = 0;
  // At most half full, so probe sequences stay short.
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, strings.size() * 2));
  slots_.assign(capacity, slot{0, 0});
  mask_ = capacity - 1;
  for (std::size_t id = 0; id < strings.size(); ++id) {
    if (!strings[id]) continue;
    const std::uint64_t h = hash(*strings[id]);
    if (find(*strings[id], h)) continue;  // a duplicate string keeps its first id
    std::size_t i = h & mask_;
    while (slots_[i].tag != 0) i = (i + 1) & mask_;
    slots_[i] = slot{tag_of(h), static_cast<token_id>(id)};
    ++num_entries_;
  }
}

}  // namespace pagedserve
