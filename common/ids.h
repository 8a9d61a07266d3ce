#pragma once
// Ids shared across layers.

#include <cstdint>

#include "common/strong_id.h"

namespace pagedserve {

struct request_id_tag;
// One client request (which may fork into several sequences when n > 1).
using request_id = strong_id<request_id_tag, std::uint64_t>;

struct seq_id_tag;
// One of a request's n completions (vLLM's child request when n > 1): the one id the
// scheduler admits, schedules and finishes it by, its block table's and the executor's.
// engine_core numbers them; clients only see request_id.
using seq_id = strong_id<seq_id_tag, std::uint64_t>;

struct block_id_tag;
// A physical KV cache block (index into every layer's K and V pools).
using block_id = strong_id<block_id_tag, std::uint32_t>;

}  // namespace pagedserve
