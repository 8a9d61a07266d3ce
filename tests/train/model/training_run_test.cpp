// The training loop on a tiny shape, in CI: it learns (held-out loss on a repeating pattern
// falls from ln(vocabulary) towards 0), and a run stopped and resumed writes the same bytes
// as a run that never stopped (weights and AdamW's moments), which also shows that a seed
// fixes the whole run.

#include "train/model/training_run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "tests/support/temp_dir.h"

namespace pagedserve::train {
namespace {

// 0 1 2 ... 9 0 1 2 ...: every token follows from the one before.
token_stream repeating_pattern(std::size_t length) {
  token_stream stream;
  for (std::size_t i = 0; i < length; ++i) stream.ids.push_back(static_cast<std::int32_t>(i % 10));
  stream.num_documents = 1;
  return stream;
}

run_options tiny_run(const std::filesystem::path& out_dir) {
  run_options o;
  o.shape.vocab_size = 16;
  o.shape.hidden_size = 32;
  o.shape.intermediate_size = 64;
  o.shape.num_layers = 2;
  o.shape.num_heads = 4;
  o.shape.num_kv_heads = 2;
  o.shape.head_dim = 8;
  o.shape.max_position_embeddings = 64;
  o.specials = {14, 15, 15};
  o.batch = 4;
  o.seq_len = 16;
  o.schedule = {1e-2, 1e-3, 5, 60};
  o.eval_every = 0;
  o.save_every = 0;
  o.weight_dtype = "F32";
  o.out_dir = out_dir;
  o.show_progress = false;
  return o;
}

std::string bytes_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST(TrainingRun, HeldOutLossFallsFromUniformTowardsZeroOnAPattern) {
  const pagedserve::testing::temp_dir dir("pagedserve-train-run");
  const run_options o = tiny_run(dir.path());
  const result<run_summary> summary =
      run_training(o, repeating_pattern(4000), repeating_pattern(400), false);
  ASSERT_TRUE(summary.ok()) << summary.err().message;
  std::printf("held-out loss after %lld steps: %.4f (uniform: %.4f)\n",
              static_cast<long long>(summary->steps), summary->heldout_loss, std::log(16.0));
  EXPECT_EQ(summary->steps, 60);
  EXPECT_LT(summary->heldout_loss, 0.1 * std::log(16.0));
  for (const char* name : {"model.safetensors", "config.json", "generation_config.json",
                           "training_state.safetensors", "training_state.json", "loss.csv"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / name)) << name;
  }
}

TEST(TrainingRun, AStoppedAndResumedRunEndsWithTheSameBytesAsAnUninterruptedOne) {
  const pagedserve::testing::temp_dir straight("pagedserve-train-straight");
  const pagedserve::testing::temp_dir resumed("pagedserve-train-resumed");
  const token_stream train = repeating_pattern(4000);
  const token_stream heldout = repeating_pattern(400);
  run_options o = tiny_run(straight.path());
  o.schedule.total_steps = 12;
  ASSERT_TRUE(run_training(o, train, heldout, false).ok());

  o.out_dir = resumed.path();
  o.stop_after_steps = 5;
  const result<run_summary> first = run_training(o, train, heldout, false);
  ASSERT_TRUE(first.ok()) << first.err().message;
  EXPECT_EQ(first->steps, 5);
  o.stop_after_steps = 0;
  const result<run_summary> rest = run_training(o, train, heldout, true);
  ASSERT_TRUE(rest.ok()) << rest.err().message;
  EXPECT_EQ(rest->steps, 12);

  for (const char* name : {"model.safetensors", "training_state.safetensors"}) {
    const std::string a = bytes_of(straight.path() / name);
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_TRUE(a == bytes_of(resumed.path() / name)) << name << " differs";
  }
}

TEST(TrainingRun, ResumingWithAnotherSeedIsRefused) {
  const pagedserve::testing::temp_dir dir("pagedserve-train-seed");
  run_options o = tiny_run(dir.path());
  o.schedule.total_steps = 4;
  o.stop_after_steps = 2;
  ASSERT_TRUE(run_training(o, repeating_pattern(4000), repeating_pattern(400), false).ok());
  o.seed = 2;
  const result<run_summary> refused =
      run_training(o, repeating_pattern(4000), repeating_pattern(400), true);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.err().message.find("another --seed"), std::string::npos)
      << refused.err().message;
}

}  // namespace
}  // namespace pagedserve::train
