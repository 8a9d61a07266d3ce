#pragma once
// Ids shared across runtime components.

#include <cstdint>

#include "runtime/core/strong_id.h"

namespace pagedserve {

struct request_id_tag;
// One client request (which may fork into several sequences when n > 1).
using request_id = strong_id<request_id_tag, std::uint64_t>;

struct seq_id_tag;
// One generated sequence; owns one block table.
using seq_id = strong_id<seq_id_tag, std::uint64_t>;

struct block_id_tag;
// A physical KV cache block (index into every layer's K and V pools).
using block_id = strong_id<block_id_tag, std::uint32_t>;

}  // namespace pagedserve
