// paged_kv_policy: the scheduler's view of kv::kv_cache_manager.

#include <cmath>

#include "runtime/kv/kv_cache_manager.h"
#include "runtime/sched/kv_policy.h"

namespace pagedserve::sched {

namespace {

class paged_kv_policy final : public kv_policy {
 public:
  explicit paged_kv_policy(const scheduler_config& config)
      : manager_(kv::kv_cache_config{config.num_blocks, config.block_size,
                                     config.enable_prefix_caching}) {}

  std::string_view name() const override { return "paged"; }
  std::uint32_t block_size() const override { return manager_.block_size(); }

  std::uint64_t max_tokens_per_sequence() const override {
    return std::uint64_t{manager_.num_blocks()} * manager_.block_size();
  }

  admission_lookup lookup_prefix(std::span<const token_id> tokens) override {
    admission_lookup lookup;
    lookup.prefix = manager_.find_cached_prefix(tokens);
    lookup.num_cached_tokens = lookup.prefix.num_computed_tokens;
    return lookup;
  }

  // Watermark: after admission at least ceil(watermark * num_blocks) blocks stay free. The
  // count of blocks needed leaves out the cached prefix; a cached block sitting in the free
  // queue also leaves it when adopted, so the margin is slightly optimistic under hits.
  bool can_admit(seq_id seq, std::uint32_t num_tokens_after_step, const admission_lookup& lookup,
                 double watermark) const override {
    const std::uint32_t block_size = manager_.block_size();
    const std::uint64_t num_needed = (num_tokens_after_step + block_size - 1) / block_size;
    const std::uint64_t num_prefix = lookup.prefix.blocks.size();
    const std::uint64_t num_new = num_needed > num_prefix ? num_needed - num_prefix : 0;
    const auto num_kept = static_cast<std::uint64_t>(
        std::ceil(watermark * static_cast<double>(manager_.num_blocks())));
    if (std::uint64_t{manager_.num_free_blocks()} < num_new + num_kept) return false;
    return manager_.can_allocate(seq, num_tokens_after_step, &lookup.prefix);
  }

  bool admit(seq_id seq, std::uint32_t num_tokens_after_step,
             const admission_lookup& lookup) override {
    return manager_.allocate_slots(seq, num_tokens_after_step, &lookup.prefix);
  }

  bool grow(seq_id seq, std::uint32_t num_tokens_after_step) override {
    return manager_.allocate_slots(seq, num_tokens_after_step);
  }

  void commit(seq_id seq, std::span<const token_id> tokens,
              std::uint32_t num_computed_tokens) override {
    manager_.cache_full_blocks(seq, tokens, num_computed_tokens);
  }

  void release(seq_id seq) override { manager_.free(seq); }

  std::span<const block_id> block_table(seq_id seq) const override {
    return manager_.block_table(seq);
  }

  std::uint64_t num_slots_allocated(seq_id seq) const override {
    return std::uint64_t{manager_.block_table(seq).size()} * manager_.block_size();
  }

  double usage() const override { return manager_.usage(); }
  kv::prefix_cache_stats prefix_stats() const override { return manager_.stats(); }

  std::uint64_t num_blocks_held() const override {
    return manager_.num_blocks() - manager_.num_free_blocks();
  }

 private:
  kv::kv_cache_manager manager_;
};

}  // namespace

std::unique_ptr<kv_policy> make_paged_kv_policy(const scheduler_config& config) {
  return std::make_unique<paged_kv_policy>(config);
}

}  // namespace pagedserve::sched
