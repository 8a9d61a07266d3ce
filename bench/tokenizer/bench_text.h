#pragma once
// The benchmark text: about `bytes` bytes of prose, code, CJK, emoji and numbers, the same for
// the same seed on every machine.

#include <cstddef>
#include <cstdint>
#include <string>

namespace pagedserve::bench {

[[nodiscard]] std::string make_mixed_text(std::size_t bytes, std::uint64_t seed = 1);

}  // namespace pagedserve::bench
