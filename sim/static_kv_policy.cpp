// static_kv_policy: the pre-paging baseline. At admission a sequence reserves one contiguous
// region of max_model_len slots (first fit), whatever its real length; growing never needs
// memory afterwards, so nothing is ever preempted, and no prefix is ever shared.

#include "sim/static_kv_policy.h"

#include "runtime/sched/sched_check.h"
#include "sim/static_kv_allocator.h"

namespace pagedserve::sim {

namespace {

using sched::admission_lookup;
using sched::kv_policy;
using sched::sched_check;
using sched::scheduler_config;

class static_kv_policy final : public kv_policy {
 public:
  explicit static_kv_policy(const scheduler_config& config)
      : allocator_(config.num_blocks * config.block_size),
        region_size_(config.max_model_len),
        block_size_(config.block_size) {}

  std::string_view name() const override { return "static"; }
  std::uint32_t block_size() const override { return block_size_; }

  std::uint64_t max_tokens_per_sequence() const override {
    return allocator_.num_slots() >= region_size_ ? region_size_ : 0;
  }

  admission_lookup lookup_prefix(std::span<const token_id>) override { return {}; }

  // The watermark is moot: a reservation already covers the sequence's whole future.
  bool can_admit(seq_id, std::uint32_t, const admission_lookup&, double) const override {
    return allocator_.can_reserve(region_size_);
  }

  bool admit(seq_id seq, std::uint32_t num_tokens_after_step, const admission_lookup&) override {
    if (!allocator_.reserve(seq, region_size_)) return false;
    allocator_.set_num_used_slots(seq, num_tokens_after_step);
    return true;
  }

  bool grow(seq_id seq, std::uint32_t num_tokens_after_step) override {
    sched_check(num_tokens_after_step <= region_size_, "static region outgrown");
    allocator_.set_num_used_slots(seq, num_tokens_after_step);
    return true;
  }

  void commit(seq_id, std::span<const token_id>, std::uint32_t) override {}

  void release(seq_id seq) override { allocator_.release(seq); }

  std::span<const block_id> block_table(seq_id) const override { return {}; }

  std::uint64_t num_slots_allocated(seq_id seq) const override {
    const auto region = allocator_.region(seq);
    return region ? region->num_slots : 0;
  }

  double usage() const override {
    if (allocator_.num_slots() == 0) return 0.0;
    return static_cast<double>(allocator_.num_reserved_slots()) / allocator_.num_slots();
  }

  kv::prefix_cache_stats prefix_stats() const override { return {}; }

  std::uint64_t num_blocks_held() const override {
    return (std::uint64_t{allocator_.num_reserved_slots()} + block_size_ - 1) / block_size_;
  }

 private:
  static_kv_allocator allocator_;
  std::uint32_t region_size_ = 0;
  std::uint32_t block_size_ = 1;
};

}  // namespace

std::unique_ptr<kv_policy> make_static_kv_policy(const scheduler_config& config) {
  return std::make_unique<static_kv_policy>(config);
}

}  // namespace pagedserve::sim
