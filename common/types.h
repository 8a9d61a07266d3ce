#pragma once
// Vocabulary types shared by every layer.

#include <cstdint>

namespace pagedserve {

// A token id as the model's vocabulary numbers it.
using token_id = std::int32_t;

}  // namespace pagedserve
