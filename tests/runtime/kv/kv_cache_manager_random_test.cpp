// Randomized scheduling traffic against kv_cache_manager, checked after every operation
// against an independent model kept by the test: which tokens each live sequence has
// computed in each of its blocks. Prompts come from a few shared prefixes over a tiny token
// alphabet, so prefix hits, shared blocks, duplicates and evictions all happen often.
//
// Checked after each operation:
//   - no block leaked: free + referenced == total; each block queued xor referenced; the
//     free-queue links are consistent (free_queue_order walks and checks them);
//   - ref_cnt == number of live block tables holding the block;
//   - every cached block's stored tokens hash to its registered hash (check_invariants);
//   - a shared block holds the same content for every holder: two sequences share a block id
//     only at the same table position and only with identical token prefixes up to it;
//   - every cached block reachable through its parent chain spells exactly the tokens its
//     holders computed, and no two reachable cached blocks spell the same (salt, prefix).
// Checked at each lookup, against a brute-force search over the reachable cached blocks:
//   - the match is the longest chain of cached blocks equal to the prompt's prefix (capped to
//     leave the last token), so identical prefixes get identical block ids, different ones
//     never do; stats().queries / hits equal the totals the test counted.
// Run with the real hash, with a hash masked to 2 bits (collisions everywhere) and with
// prefix caching disabled.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "runtime/kv/kv_cache_manager.h"
#include "tests/runtime/kv/kv_test_util.h"

namespace pagedserve::kv {
namespace {

constexpr std::uint32_t block_size = 4;
constexpr std::uint32_t num_blocks = 48;

struct sim_seq {
  seq_id id;
  std::vector<token_id> tokens;  // prompt, then generated tokens
  std::uint32_t num_computed = 0;
  std::uint64_t salt = 0;
};

using content = std::pair<std::uint64_t, std::vector<token_id>>;  // (salt, full prefix)

class random_traffic {
 public:
  random_traffic(std::uint32_t seed, kv_cache_config config, block_hash_fn hash_fn)
      : rng_(seed), config_(config), m_(config, std::move(hash_fn)) {
    for (int i = 0; i < 4; ++i) shared_prefixes_.push_back(random_tokens(uniform(0, 14)));
  }

  void run(int num_ops) {
    for (int op = 0; op < num_ops; ++op) {
      const std::uint32_t dice = uniform(0, 99);
      if (dice < 25) {
        admit(make_prompt());
      } else if (dice < 35 && !waiting_.empty()) {
        admit_preempted();
      } else if (dice < 80) {
        step();
      } else if (dice < 90) {
        finish(/*preempt=*/false);
      } else {
        finish(/*preempt=*/true);
      }
      check();
      if (HasFatalFailure() || HasFailure()) return;
    }
  }

  void drain() {
    while (!running_.empty()) finish(false);
    m_.free(seq_id{999'999});  // cancelling a sequence that never ran changes nothing
    check();
    EXPECT_EQ(m_.num_free_blocks(), num_blocks);
    EXPECT_DOUBLE_EQ(m_.usage(), 0.0);
  }

  std::uint64_t num_hit_tokens() const { return hits_; }
  std::uint64_t num_admissions() const { return num_admissions_; }
  std::uint64_t num_preemptions() const { return num_preemptions_; }

 private:
  static bool HasFatalFailure() { return ::testing::Test::HasFatalFailure(); }
  static bool HasFailure() { return ::testing::Test::HasFailure(); }

  std::uint32_t uniform(std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng_);
  }
  std::vector<token_id> random_tokens(std::uint32_t n) {
    std::vector<token_id> out(n);
    for (token_id& t : out) t = static_cast<token_id>(uniform(0, 2));
    return out;
  }

  sim_seq make_prompt() {
    sim_seq s{seq_id{next_seq_++}, shared_prefixes_[uniform(0, 3)], 0, uniform(0, 4) == 0};
    const auto suffix = random_tokens(uniform(1, 10));
    s.tokens.insert(s.tokens.end(), suffix.begin(), suffix.end());
    return s;
  }

  void admit(sim_seq s) {
    const computed_blocks match = m_.get_computed_blocks(s.tokens, s.salt);
    queries_ += config_.enable_prefix_caching ? s.tokens.size() : 0;
    hits_ += match.num_computed_tokens;
    expect_longest_match(s, match);
    const std::uint32_t target = std::min<std::uint32_t>(
        match.num_computed_tokens + uniform(1, 12), static_cast<std::uint32_t>(s.tokens.size()));
    if (!m_.allocate_slots(s.id, target, &match)) {
      EXPECT_FALSE(m_.can_allocate(s.id, target, &match));
      EXPECT_TRUE(m_.block_table(s.id).empty());
      return;
    }
    ++num_admissions_;
    s.num_computed = target;
    m_.cache_blocks(s.id, s.tokens, s.num_computed, s.salt);
    running_.push_back(std::move(s));
  }

  void admit_preempted() {
    const std::size_t i = uniform(0, static_cast<std::uint32_t>(waiting_.size() - 1));
    sim_seq s = std::move(waiting_[i]);
    waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
    s.num_computed = 0;
    admit(std::move(s));
  }

  // One scheduling step for one running sequence: a prefill chunk, or one decode token.
  void step() {
    if (running_.empty()) return;
    sim_seq& s = running_[uniform(0, static_cast<std::uint32_t>(running_.size() - 1))];
    if (s.num_computed == s.tokens.size()) s.tokens.push_back(static_cast<token_id>(uniform(0, 2)));
    const std::uint32_t remaining = static_cast<std::uint32_t>(s.tokens.size()) - s.num_computed;
    const std::uint32_t target = s.num_computed + std::min(remaining, uniform(1, 6));
    if (!m_.allocate_slots(s.id, target, nullptr)) {
      EXPECT_FALSE(m_.can_allocate(s.id, target));
      preempt(s.id);
      return;
    }
    s.num_computed = target;
    m_.cache_blocks(s.id, s.tokens, s.num_computed, s.salt);
  }

  void finish(bool preempt_it) {
    if (running_.empty()) return;
    const sim_seq& s = running_[uniform(0, static_cast<std::uint32_t>(running_.size() - 1))];
    if (preempt_it) {
      preempt(s.id);
    } else {
      m_.free(s.id);
      std::erase_if(running_, [&](const sim_seq& r) { return r.id == s.id; });
    }
  }

  void preempt(seq_id id) {
    auto it = std::ranges::find_if(running_, [&](const sim_seq& r) { return r.id == id; });
    m_.free(id);
    ++num_preemptions_;
    waiting_.push_back(std::move(*it));
    running_.erase(it);
  }

  // Full prefix spelled by a cached block through its parent registrations, if reachable
  // (memoized per snapshot in spelled_).
  const std::optional<content>& spelled(block_id id) {
    if (done_[id.value()]) return spelled_[id.value()];
    done_[id.value()] = true;
    const kv_block& b = m_.pool().block(id);
    if (!b.cached) return spelled_[id.value()];
    std::vector<token_id> prefix;
    if (b.cached->parent) {
      auto parent = by_key_.find(b.cached->parent->key);
      if (parent == by_key_.end()) return spelled_[id.value()];  // parent evicted: unreachable
      const auto& p = spelled(parent->second);
      if (!p || p->first != b.cached->salt) return spelled_[id.value()];
      prefix = p->second;
    }
    const auto own = m_.pool().cached_tokens(id);
    prefix.insert(prefix.end(), own.begin(), own.end());
    spelled_[id.value()] = content{b.cached->salt, std::move(prefix)};
    return spelled_[id.value()];
  }

  void index_cached_blocks() {
    by_key_.clear();
    reachable_.clear();
    spelled_.assign(num_blocks, std::nullopt);
    done_.assign(num_blocks, false);
    for (std::uint32_t i = 0; i < num_blocks; ++i) {
      if (const auto& c = m_.pool().block(block_id{i}).cached) by_key_[c->key] = block_id{i};
    }
    for (std::uint32_t i = 0; i < num_blocks; ++i) {
      if (const auto& c = spelled(block_id{i})) {
        const bool unique = reachable_.emplace(*c, block_id{i}).second;
        EXPECT_TRUE(unique) << "two reachable cached blocks hold the same prefix; block " << i;
      }
    }
  }

  void expect_longest_match(const sim_seq& s, const computed_blocks& match) {
    index_cached_blocks();
    std::vector<block_id> expected;
    if (config_.enable_prefix_caching && !s.tokens.empty()) {
      for (std::size_t k = 1; k * block_size <= s.tokens.size() - 1; ++k) {
        std::vector<token_id> prefix(s.tokens.begin(), s.tokens.begin() + k * block_size);
        auto it = reachable_.find(content{s.salt, prefix});
        if (it == reachable_.end()) break;
        expected.push_back(it->second);
      }
    }
    EXPECT_EQ(testing::ids(match.blocks), testing::ids(expected));
    EXPECT_EQ(match.num_computed_tokens, expected.size() * block_size);
  }

  void check() {
    m_.check_invariants();
    std::vector<std::uint32_t> holders(num_blocks, 0);
    // (block id) -> (position, content computed so far by a holder)
    std::map<std::uint32_t, std::pair<std::size_t, content>> seen;
    for (const sim_seq& s : running_) {
      const auto table = m_.block_table(s.id);
      ASSERT_EQ(table.size(), (s.num_computed + block_size - 1) / block_size);
      for (std::size_t i = 0; i < table.size(); ++i) {
        const std::uint32_t b = table[i].value();
        ++holders[b];
        const std::size_t end = std::min<std::size_t>((i + 1) * block_size, s.num_computed);
        content c{s.salt, {s.tokens.begin(), s.tokens.begin() + static_cast<std::ptrdiff_t>(end)}};
        auto [it, first] = seen.try_emplace(b, i, c);
        if (!first) {
          EXPECT_EQ(it->second.first, i) << "block " << b << " at two table positions";
          EXPECT_EQ(it->second.second, c) << "block " << b << " shared by different prefixes";
        }
      }
    }
    std::uint32_t num_referenced = 0;
    for (std::uint32_t b = 0; b < num_blocks; ++b) {
      EXPECT_EQ(m_.pool().block(block_id{b}).ref_cnt, holders[b]) << "block " << b;
      num_referenced += holders[b] > 0 ? 1 : 0;
    }
    const auto queue = m_.pool().free_queue_order();
    EXPECT_EQ(queue.size() + num_referenced, num_blocks) << "blocks leaked";
    for (block_id b : queue) EXPECT_EQ(holders[b.value()], 0u) << "queued block is held";
    index_cached_blocks();
    for (const auto& [b, entry] : seen) {
      const auto& c = spelled(block_id{b});
      if (c) {
        EXPECT_EQ(*c, entry.second) << "cached block " << b << " spells other tokens";
      }
    }
    EXPECT_EQ(m_.stats().queries, queries_);
    EXPECT_EQ(m_.stats().hits, hits_);
    if (!config_.enable_prefix_caching) {
      EXPECT_EQ(m_.pool().num_cached_blocks(), 0u);
    }
  }

  std::mt19937 rng_;
  kv_cache_config config_;
  kv_cache_manager m_;
  std::vector<std::vector<token_id>> shared_prefixes_;
  std::vector<sim_seq> running_;
  std::vector<sim_seq> waiting_;
  std::uint64_t next_seq_ = 1;
  std::uint64_t queries_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t num_admissions_ = 0;
  std::uint64_t num_preemptions_ = 0;
  std::map<std::uint64_t, block_id> by_key_;
  std::map<content, block_id> reachable_;
  std::vector<std::optional<content>> spelled_;
  std::vector<bool> done_;
};

block_hash masked_hash(std::optional<block_hash> parent, std::span<const token_id> tokens,
                       std::uint64_t salt) {
  return block_hash{hash_block_tokens(parent, tokens, salt).value & 0x3};
}

struct traffic_case {
  const char* name;
  bool caching;
  block_hash_fn hash_fn;
};

void run_case(const traffic_case& c, std::uint32_t seed) {
  SCOPED_TRACE(std::string(c.name) + " seed " + std::to_string(seed));
  random_traffic t(seed, kv_cache_config{num_blocks, block_size, c.caching}, c.hash_fn);
  t.run(3000);
  t.drain();
  EXPECT_GT(t.num_admissions(), 300u);
  EXPECT_GT(t.num_preemptions(), 100u);
  if (c.caching) {
    EXPECT_GT(t.num_hit_tokens(), 1000u) << "the traffic must exercise hits";
  }
}

TEST(RandomTraffic, RealHash) {
  for (std::uint32_t seed = 1; seed <= 2; ++seed) run_case({"real", true, hash_block_tokens}, seed);
}

TEST(RandomTraffic, HashCollisionsForced) {
  for (std::uint32_t seed = 1; seed <= 2; ++seed) run_case({"2-bit", true, masked_hash}, seed);
}

TEST(RandomTraffic, PrefixCachingDisabled) { run_case({"disabled", false, hash_block_tokens}, 1); }

}  // namespace
}  // namespace pagedserve::kv
