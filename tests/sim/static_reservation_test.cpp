// static_reservation: the pre-paging baseline through the real scheduler. Expected values
// follow from the rule alone: each sequence holds ceil(max_model_len / block_size) blocks
// from admission to its end, so floor(num_blocks / that) run at once, and none is preempted.
#include "sim/static_reservation.h"

#include <gtest/gtest.h>

#include "tests/runtime/sched/sched_harness.h"

namespace pagedserve::sim {
namespace {

using sched::testing::harness;
using sched::testing::run_to_end;
using sched::testing::tiny_config;

sched::scheduler_config eight_blocks_of_four() {
  sched::scheduler_config config = tiny_config(8, 4);
  config.max_model_len = 16;  // 4 blocks per reservation: 2 sequences fit
  config.watermark = 0.05;    // ignored by the baseline: nothing can outgrow its reservation
  return config;
}

TEST(StaticReservation, ShortSequencesStillHoldMaxModelLenEach) {
  const static_baseline baseline = static_reservation(eight_blocks_of_four());
  harness h(baseline.sched, baseline.kv);
  for (std::uint64_t id = 0; id < 3; ++id) h.add(id, 4, 4);  // 8 tokens: 2 blocks if paged
  h.step();
  EXPECT_EQ(h.sched.num_running(), 2u);
  EXPECT_EQ(h.sched.num_waiting(), 1u);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 8u);
  run_to_end(h);
  EXPECT_EQ(h.sched.totals().num_preemptions, 0u);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
  EXPECT_EQ(sched::testing::num_finished(h.sched.take_events()), 3u);
}

TEST(StaticReservation, PagedRunsAllThreeInTheSamePool) {
  harness h(eight_blocks_of_four());
  for (std::uint64_t id = 0; id < 3; ++id) h.add(id, 4, 4);
  h.step();
  EXPECT_EQ(h.sched.num_running(), 3u);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 3u) << "one block each for 4 prompt tokens";
}

TEST(StaticReservation, ARequestLongerThanThePoolIsRejectedAtAdd) {
  sched::scheduler_config config = eight_blocks_of_four();
  config.max_model_len = 40;  // 10 blocks reserved per sequence: more than the pool's 8
  const static_baseline baseline = static_reservation(config);
  sched::scheduler s(baseline.sched, baseline.kv);
  sched::request_spec spec;
  spec.id = seq_id{1};
  spec.prompt_token_ids = {1, 2, 3};
  spec.max_tokens = 1;
  const auto added = s.add_request(spec, 0.0);
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(added.err().code, error_code::capacity_exceeded);
}

}  // namespace
}  // namespace pagedserve::sim
