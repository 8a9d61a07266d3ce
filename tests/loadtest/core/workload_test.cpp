#include "loadtest/core/workload.h"

#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <set>
#include <string>

#include "tests/support/fixtures.h"

namespace pagedserve::loadtest {
namespace {

namespace fs = std::filesystem;

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path path = fs::path(::testing::TempDir()) / ("ltcore_" + name + ".jsonl");
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& name, const std::string& text) {
  auto reqs = load_jsonl_workload(write_temp(name, text));
  EXPECT_FALSE(reqs.ok()) << name;
  return reqs.ok() ? std::string() : reqs.err().message;
}

TEST(LoadtestWorkload, Nano256HasTheTokenCountsPythonMade) {
  auto reqs = load_jsonl_workload(testing::bench_dir() / "nano-256.jsonl");
  ASSERT_TRUE(reqs.ok()) << reqs.err().message;
  ASSERT_EQ(reqs->size(), 256U);
  std::uint64_t prompt = 0;
  std::uint64_t output = 0;
  for (const auto& r : *reqs) {
    ASSERT_TRUE(r.has_token_ids());
    EXPECT_GE(r.prompt_token_ids.size(), 100U);
    EXPECT_LE(r.prompt_token_ids.size(), 1024U);
    prompt += r.known_prompt_tokens();
    output += r.max_tokens;
    for (token_id id : r.prompt_token_ids) {
      ASSERT_GE(id, 0);
      ASSERT_LE(id, 10000);
    }
  }
  EXPECT_EQ(prompt, 142827U);
  EXPECT_EQ(output, 133966U);
}

TEST(LoadtestWorkload, TextPromptsAndBlankLinesAndExtraFields) {
  auto reqs =
      load_jsonl_workload(write_temp("text",
                                     "{\"prompt\": \"hello\", \"max_tokens\": 3, \"id\": 7}\n\n"
                                     "{\"prompt_token_ids\": [1, 2], \"max_tokens\": 4}\n"));
  ASSERT_TRUE(reqs.ok()) << reqs.err().message;
  ASSERT_EQ(reqs->size(), 2U);
  EXPECT_EQ((*reqs)[0].prompt_text, "hello");
  EXPECT_FALSE((*reqs)[0].has_token_ids());
  EXPECT_EQ((*reqs)[0].known_prompt_tokens(), 0U);
  EXPECT_EQ((*reqs)[0].max_tokens, 3U);
  EXPECT_EQ((*reqs)[1].prompt_token_ids, (std::vector<token_id>{1, 2}));
  EXPECT_EQ((*reqs)[1].max_tokens, 4U);
}

TEST(LoadtestWorkload, BadLinesFailWithTheirLineNumber) {
  const std::string good = "{\"prompt_token_ids\": [1], \"max_tokens\": 2}\n";
  EXPECT_NE(load_error("badjson", good + "\n{\"prompt\": \n").find(":3:"), std::string::npos);
  EXPECT_NE(load_error("maxstr", good + "{\"prompt\": \"x\", \"max_tokens\": \"8\"}\n")
                .find(":2: max_tokens"),
            std::string::npos);
  EXPECT_NE(load_error("nomax", "{\"prompt\": \"x\"}\n").find(":1: needs max_tokens"),
            std::string::npos);
  EXPECT_NE(load_error("zeromax", "{\"prompt\": \"x\", \"max_tokens\": 0}\n").find(":1:"),
            std::string::npos);
  EXPECT_NE(load_error("idstr", good + good +
                                    "{\"prompt_token_ids\": [1, \"2\"], "
                                    "\"max_tokens\": 2}\n")
                .find(":3: prompt_token_ids"),
            std::string::npos);
  EXPECT_NE(load_error("idneg", "{\"prompt_token_ids\": [-1], \"max_tokens\": 2}\n").find(":1:"),
            std::string::npos);
  EXPECT_NE(load_error("noprompt", "{\"max_tokens\": 2}\n").find(":1: needs prompt"),
            std::string::npos);
  EXPECT_NE(load_error("array", "[1, 2]\n").find(":1: not a JSON object"), std::string::npos);
}

TEST(LoadtestWorkload, UnreadableFileNamesThePath) {
  const fs::path missing = fs::path(::testing::TempDir()) / "ltcore_no_such_file.jsonl";
  auto reqs = load_jsonl_workload(missing);
  ASSERT_FALSE(reqs.ok());
  EXPECT_NE(reqs.err().message.find(missing.string()), std::string::npos);
}

TEST(LoadtestWorkload, RandomLengthsCoverVllmBounds) {
  // input 100, ratio 0.25: [int(75.0), int(125.0)] = [75, 125]; output 10: [7, 12].
  const random_workload_spec spec{.num_requests = 3000,
                                  .input_len = 100,
                                  .output_len = 10,
                                  .range_ratio = 0.25,
                                  .prefix_len = 0,
                                  .ids = {5, 9}};
  auto reqs = make_random_workload(spec, 42);
  ASSERT_TRUE(reqs.ok()) << reqs.err().message;
  ASSERT_EQ(reqs->size(), 3000U);
  std::set<std::size_t> input_lens;
  std::set<std::uint32_t> output_lens;
  std::set<token_id> ids;
  for (const auto& r : *reqs) {
    input_lens.insert(r.prompt_token_ids.size());
    output_lens.insert(r.max_tokens);
    ids.insert(r.prompt_token_ids.begin(), r.prompt_token_ids.end());
  }
  EXPECT_EQ(*input_lens.begin(), 75U);
  EXPECT_EQ(*input_lens.rbegin(), 125U);
  EXPECT_EQ(input_lens.size(), 51U);  // every length in [75, 125] drawn
  EXPECT_EQ(output_lens, (std::set<std::uint32_t>{7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(ids, (std::set<token_id>{5, 6, 7, 8}));
}

TEST(LoadtestWorkload, RandomLengthsAreAtLeastOneAndExactWithoutRange) {
  random_workload_spec tiny;
  tiny.num_requests = 50;
  tiny.input_len = 1;
  tiny.output_len = 1;
  tiny.range_ratio = 0.9;
  auto reqs = make_random_workload(tiny, 1);
  ASSERT_TRUE(reqs.ok());
  for (const auto& r : *reqs) {
    EXPECT_EQ(r.prompt_token_ids.size(), 1U);  // [max(int(0.1), 1), int(1.9)] = [1, 1]
    EXPECT_EQ(r.max_tokens, 1U);
  }
  random_workload_spec exact;
  exact.num_requests = 20;
  exact.input_len = 33;
  exact.output_len = 7;
  reqs = make_random_workload(exact, 1);
  ASSERT_TRUE(reqs.ok());
  for (const auto& r : *reqs) {
    EXPECT_EQ(r.prompt_token_ids.size(), 33U);
    EXPECT_EQ(r.max_tokens, 7U);
  }
}

TEST(LoadtestWorkload, RandomPrefixIsSharedAndSeedDecides) {
  random_workload_spec spec;
  spec.num_requests = 10;
  spec.input_len = 20;
  spec.output_len = 5;
  spec.range_ratio = 0.5;
  spec.prefix_len = 16;
  auto a = make_random_workload(spec, 7);
  auto b = make_random_workload(spec, 7);
  auto c = make_random_workload(spec, 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  const std::vector<token_id> prefix((*a)[0].prompt_token_ids.begin(),
                                     (*a)[0].prompt_token_ids.begin() + 16);
  for (std::size_t i = 0; i < a->size(); ++i) {
    const auto& ids = (*a)[i].prompt_token_ids;
    ASSERT_GE(ids.size(), 16U + 10U);
    EXPECT_LE(ids.size(), 16U + 30U);
    EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), ids.begin()));
    EXPECT_EQ(ids, (*b)[i].prompt_token_ids);
    EXPECT_EQ((*a)[i].max_tokens, (*b)[i].max_tokens);
  }
  EXPECT_NE((*a)[0].prompt_token_ids, (*c)[0].prompt_token_ids);
}

TEST(LoadtestWorkload, RandomRejectsBadSpecs) {
  random_workload_spec spec;
  spec.range_ratio = 1.0;
  EXPECT_FALSE(make_random_workload(spec, 0).ok());
  spec.range_ratio = 0.0;
  spec.num_requests = 0;
  EXPECT_FALSE(make_random_workload(spec, 0).ok());
  spec.num_requests = 1;
  spec.ids = {10, 10};
  EXPECT_FALSE(make_random_workload(spec, 0).ok());
}

TEST(LoadtestWorkload, SharedPrefixGroupsInterleave) {
  const shared_prefix_workload_spec spec{.num_groups = 4,
                                         .requests_per_group = 3,
                                         .prefix_len = 16,
                                         .suffix_len = 8,
                                         .output_len = 5,
                                         .ids = {}};
  auto reqs = make_shared_prefix_workload(spec, 3);
  ASSERT_TRUE(reqs.ok()) << reqs.err().message;
  ASSERT_EQ(reqs->size(), 12U);
  const auto prefix_of = [&](std::size_t i) {
    const auto& ids = (*reqs)[i].prompt_token_ids;
    return std::vector<token_id>(ids.begin(), ids.begin() + 16);
  };
  std::set<std::vector<token_id>> prefixes;
  std::set<std::vector<token_id>> prompts;
  for (std::size_t i = 0; i < reqs->size(); ++i) {
    EXPECT_EQ((*reqs)[i].prompt_token_ids.size(), 24U);
    EXPECT_EQ((*reqs)[i].max_tokens, 5U);
    EXPECT_EQ(prefix_of(i), prefix_of(i % 4)) << i;
    prefixes.insert(prefix_of(i));
    prompts.insert((*reqs)[i].prompt_token_ids);
  }
  EXPECT_EQ(prefixes.size(), 4U);  // one prefix per group, all different
  EXPECT_EQ(prompts.size(), 12U);  // suffixes differ
  auto again = make_shared_prefix_workload(spec, 3);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[11].prompt_token_ids, (*reqs)[11].prompt_token_ids);
}

TEST(LoadtestWorkload, ShapingLimitsScalesAndMapsIds) {
  std::vector<bench_request> reqs(3);
  reqs[0].prompt_token_ids.resize(101);
  std::iota(reqs[0].prompt_token_ids.begin(), reqs[0].prompt_token_ids.end(), 995);
  reqs[0].max_tokens = 7;
  reqs[1].prompt_text = "h\xC3\xA9llo";  // 6 bytes; half is 3: "h" + the 2-byte e-acute
  reqs[1].max_tokens = 1;
  reqs[2].prompt_token_ids = {1};
  auto shaped =
      shape_workload(reqs, {.limit = 2, .length_scale = 0.5, .vocab_size = std::int64_t{1000}});
  ASSERT_TRUE(shaped.ok()) << shaped.err().message;
  ASSERT_EQ(shaped->size(), 2U);
  const auto& ids = (*shaped)[0].prompt_token_ids;
  ASSERT_EQ(ids.size(), 50U);
  EXPECT_EQ(ids[0], 995);
  EXPECT_EQ(ids[5], 0);  // 1000 % 1000
  EXPECT_EQ(ids[49], 44);
  EXPECT_EQ((*shaped)[0].max_tokens, 3U);
  EXPECT_EQ((*shaped)[1].prompt_text, "h\xC3\xA9");
  EXPECT_EQ((*shaped)[1].max_tokens, 1U);
}

TEST(LoadtestWorkload, ShapingRejectsEmptyAndBadRequests) {
  EXPECT_FALSE(shape_workload({}, {}).ok());
  std::vector<bench_request> one(1);
  one[0].prompt_token_ids = {1};
  EXPECT_FALSE(shape_workload(one, {.limit = 0, .length_scale = 1.0, .vocab_size = {}}).ok());
  EXPECT_FALSE(shape_workload(one, {.limit = {}, .length_scale = 0.0, .vocab_size = {}}).ok());
  EXPECT_FALSE(shape_workload(one, {.limit = {}, .length_scale = 1.0, .vocab_size = 0}).ok());
  one[0].max_tokens = 0;
  EXPECT_FALSE(shape_workload(one, {}).ok());
  one[0].max_tokens = 1;
  one[0].prompt_token_ids.clear();
  EXPECT_FALSE(shape_workload(one, {}).ok());
}

}  // namespace
}  // namespace pagedserve::loadtest
