#pragma once
// Ids shared across layers.

#include <cstdint>

#include "common/strong_id.h"

namespace pagedserve {

struct request_id_tag;
// One client request (which may fork into several sequences when n > 1).
using request_id = strong_id<request_id_tag, std::uint64_t>;

struct completion_id_tag;
// One of a request's n completions: what the scheduler admits, schedules and finishes
// (vLLM's child request when n > 1). engine_core numbers them; clients only see request_id.
using completion_id = strong_id<completion_id_tag, std::uint64_t>;

struct seq_id_tag;
// One generated sequence; owns one block table.
using seq_id = strong_id<seq_id_tag, std::uint64_t>;

struct block_id_tag;
// A physical KV cache block (index into every layer's K and V pools).
using block_id = strong_id<block_id_tag, std::uint32_t>;

}  // namespace pagedserve
