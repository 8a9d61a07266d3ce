#pragma once
// Vocabulary types shared by every runtime component.

#include <cstdint>

namespace pagedserve {

// A token id as the model's vocabulary numbers it.
using token_id = std::int32_t;

}  // namespace pagedserve
