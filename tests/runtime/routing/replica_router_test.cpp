// replica_router's two policies on loads and prompts worked out by hand.
#include "runtime/routing/replica_router.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace pagedserve::routing {
namespace {

using tokens = std::vector<token_id>;

// `n` tokens: `group` repeated, so prompts of one group share their whole length.
tokens prompt(token_id group, std::size_t n, token_id tail = 0) {
  tokens t(n, group);
  if (tail != 0) t.push_back(tail);
  return t;
}

routing_options prefix_aware(std::uint64_t abs = 1000, double rel = 1.5) {
  return {.policy = routing_policy::prefix_aware,
          .prefix_tree_max_tokens = 1000,
          .min_match_tokens = 16,
          .balance_abs_tokens = abs,
          .balance_rel = rel};
}

TEST(RoutingPolicy, ParsesTheTwoNames) {
  EXPECT_EQ(parse_routing_policy("least_load"), routing_policy::least_load);
  EXPECT_EQ(parse_routing_policy("prefix_aware"), routing_policy::prefix_aware);
  EXPECT_FALSE(parse_routing_policy("round_robin"));
  EXPECT_EQ(to_string(routing_policy::prefix_aware), "prefix_aware");
}

TEST(ReplicaRouter, LeastLoadSpreadsEqualRequestsAndFollowsFinishes) {
  replica_router router(3, {});
  // Each routing adds 100 outstanding tokens: 0, 1, 2, then 0 again (ties: lower index).
  std::vector<std::size_t> chosen;
  for (int i = 0; i < 4; ++i) chosen.push_back(router.route(prompt(1, 4), 100)->replica);
  EXPECT_EQ(chosen, (std::vector<std::size_t>{0, 1, 2, 0}));
  EXPECT_EQ(router.outstanding_tokens(0), 200u);
  router.finished(0, 100);
  router.finished(0, 100);
  router.finished(0, 100);  // more than outstanding: stops at 0
  EXPECT_EQ(router.outstanding_tokens(0), 0u);
  EXPECT_EQ(router.route(prompt(1, 4), 50)->replica, 0u);
}

TEST(ReplicaRouter, LeastLoadBreaksTokenTiesByReportedKvUsageThenWaiting) {
  replica_router router(3, {});
  router.report(0, {.num_running = 1, .num_waiting = 0, .kv_usage = 0.5});
  router.report(1, {.num_running = 1, .num_waiting = 3, .kv_usage = 0.2});
  router.report(2, {.num_running = 1, .num_waiting = 1, .kv_usage = 0.2});
  EXPECT_EQ(router.route(prompt(1, 4), 0)->replica, 2u);  // 0.2 and 1 waiting
}

TEST(ReplicaRouter, DownReplicasAreSkippedAndNoneUpGivesNothing) {
  replica_router router(2, {});
  router.set_up(0, false);
  EXPECT_EQ(router.num_up(), 1u);
  EXPECT_EQ(router.route(prompt(1, 4), 10)->replica, 1u);
  EXPECT_EQ(router.route(prompt(1, 4), 10)->replica, 1u);
  router.set_up(1, false);
  EXPECT_FALSE(router.route(prompt(1, 4), 10));
  router.set_up(0, true);
  EXPECT_EQ(router.route(prompt(1, 4), 10)->replica, 0u);
}

TEST(ReplicaRouter, PrefixAwareKeepsAGroupOnTheReplicaThatServedIt) {
  replica_router router(2, prefix_aware());
  // Group 7 lands on 0 (all idle), group 8 on 1 (0 is busier by then).
  EXPECT_EQ(router.route(prompt(7, 40, 1), 100)->replica, 0u);
  EXPECT_EQ(router.route(prompt(8, 40, 1), 100)->replica, 1u);
  // Group 7 again, although 0 is now busier than 1: it holds 40 matching tokens.
  EXPECT_EQ(router.route(prompt(7, 40, 2), 100)->replica, 0u);
  const auto again = router.route(prompt(7, 40, 3), 100);
  EXPECT_EQ(again->replica, 0u);
  EXPECT_EQ(again->matched_tokens, 40u);
  EXPECT_FALSE(again->load_fallback);
  // Least load would have chosen 1: before this routing 0 had 200 outstanding, 1 had 100.
  EXPECT_EQ(router.outstanding_tokens(0), 300u);
  EXPECT_EQ(router.outstanding_tokens(1), 100u);
}

TEST(ReplicaRouter, PrefixAwareFallsBackBelowTheMinimumMatch) {
  replica_router router(2, prefix_aware());
  EXPECT_EQ(router.route(prompt(7, 40), 100)->replica, 0u);
  const auto short_match = router.route(tokens(15, 7), 1);  // 15 < 16 tokens match on 0
  EXPECT_EQ(short_match->replica, 1u);
  EXPECT_TRUE(short_match->load_fallback);
}

TEST(ReplicaRouter, PrefixAwareLeavesAnOverloadedReplicaOnlyPastBothThresholds) {
  replica_router router(2, prefix_aware(/*abs=*/1000, /*rel=*/1.5));
  EXPECT_EQ(router.route(prompt(7, 40), 1500)->replica, 0u);  // 1500 outstanding
  EXPECT_EQ(router.route(prompt(8, 40), 600)->replica, 1u);   // 600
  // 1500 - 600 = 900 <= 1000: still the cache's replica.
  EXPECT_EQ(router.route(prompt(7, 40, 5), 100)->replica, 0u);
  // Now 1600 - 600 = 1000: still not past; one more makes 1700 - 600 = 1100 > 1000, and
  // 1700 > 1.5 x 600 = 900: overloaded, so the least loaded one (1) takes it.
  EXPECT_EQ(router.route(prompt(7, 40, 6), 100)->replica, 0u);
  const auto fallback = router.route(prompt(7, 40, 7), 100);
  EXPECT_EQ(fallback->replica, 1u);
  EXPECT_TRUE(fallback->load_fallback);
}

TEST(ReplicaRouter, AReplicaThatGoesDownForgetsItsCacheAndLoad) {
  replica_router router(2, prefix_aware());
  EXPECT_EQ(router.route(prompt(7, 40), 100)->replica, 0u);
  router.set_up(0, false);
  EXPECT_EQ(router.outstanding_tokens(0), 0u);
  router.set_up(0, true);
  EXPECT_EQ(router.route(prompt(9, 40), 10)->replica, 0u);  // both idle: the lower index
  // Group 7's prefix was forgotten with the replica: it goes by load, to 1.
  const auto after = router.route(prompt(7, 40, 1), 10);
  EXPECT_EQ(after->replica, 1u);
  EXPECT_TRUE(after->load_fallback);
}

}  // namespace
}  // namespace pagedserve::routing
