// The engine's public message types and errors as other nodes see them: serialized by their
// registered names (add_engine_message_types), optional fields included, and errors of the
// "pagedserve" category rendered with their context.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "actors/engine_errors.h"
#include "actors/spawn_engine.h"

namespace pagedserve::actors {
namespace {

generation_request greedy_request(std::vector<token_id> prompt, std::uint32_t max_tokens) {
  generation_request r;
  r.prompt_token_ids = std::move(prompt);
  r.sampling.max_tokens = max_tokens;
  r.sampling.temperature = 0.0f;
  r.sampling.ignore_eos = true;
  return r;
}

// The public types as they cross the network: a message holding them serializes by the
// registered names and comes back equal (optional fields included).
template <class T>
T round_trip(caf::actor_system& system, const T& value) {
  std::vector<char> buf;
  caf::binary_serializer sink{system, buf};
  caf::message out = caf::make_message(value);
  EXPECT_FALSE(sink(out)) << "serializing";
  caf::message in;
  caf::binary_deserializer source{system, buf};
  EXPECT_FALSE(source(in)) << "deserializing";
  EXPECT_TRUE(in.match_elements<T>()) << "type lost";
  return in.match_elements<T>() ? in.get_as<T>(0) : T{};
}

TEST(engine_messages, public_message_types_survive_serialization) {
  caf::actor_system_config cfg;
  add_engine_message_types(cfg);
  caf::actor_system system{cfg};

  generation_request req = greedy_request({1, 2, 3}, 7);
  req.prompt = "hello";
  req.sampling.temperature = 0.5f;
  req.sampling.top_k = 3;
  req.sampling.top_p = 0.9f;
  req.sampling.min_p = 0.25f;
  req.sampling.seed = 42;
  req.sampling.presence_penalty = 0.5f;
  req.sampling.frequency_penalty = -1.0f;
  req.sampling.repetition_penalty = 1.2f;
  req.sampling.logit_bias = {{7, 100.0f}, {3, -2.5f}};
  req.sampling.min_tokens = 4;
  req.sampling.stop = {"END"};
  req.sampling.stop_token_ids = {9};
  req.sampling.n = 2;
  req.priority = -1;
  req.add_special_tokens = false;
  const generation_request got = round_trip(system, req);
  EXPECT_EQ(got.prompt_token_ids, req.prompt_token_ids);
  EXPECT_EQ(got.prompt, "hello");
  EXPECT_EQ(got.sampling.max_tokens, 7u);
  EXPECT_EQ(got.sampling.temperature, 0.5f);
  EXPECT_EQ(got.sampling.top_k, 3);
  EXPECT_EQ(got.sampling.top_p, 0.9f);
  EXPECT_EQ(got.sampling.min_p, 0.25f);
  EXPECT_EQ(got.sampling.seed, std::optional<std::uint64_t>(42));
  EXPECT_EQ(got.sampling.logprobs, std::nullopt);
  EXPECT_EQ(got.sampling.presence_penalty, 0.5f);
  EXPECT_EQ(got.sampling.frequency_penalty, -1.0f);
  EXPECT_EQ(got.sampling.repetition_penalty, 1.2f);
  EXPECT_EQ(got.sampling.logit_bias, req.sampling.logit_bias);
  EXPECT_EQ(got.sampling.min_tokens, 4U);
  EXPECT_EQ(got.sampling.stop, req.sampling.stop);
  EXPECT_EQ(got.sampling.stop_token_ids, req.sampling.stop_token_ids);
  EXPECT_TRUE(got.sampling.ignore_eos);
  EXPECT_EQ(got.sampling.n, 2u);
  EXPECT_EQ(got.priority, -1);
  EXPECT_FALSE(got.add_special_tokens);
  req.sampling.logprobs = 0;  // present and zero: not the same as absent
  EXPECT_EQ(round_trip(system, req).sampling.logprobs, std::optional<std::int32_t>(0));
  EXPECT_FALSE(got.sampling.pooling);
  req.sampling.pooling = pooling_params{pooling_type::cls, 64, false};
  const std::optional<pooling_params> pooled = round_trip(system, req).sampling.pooling;
  ASSERT_TRUE(pooled);
  EXPECT_EQ(pooled->type, pooling_type::cls);
  EXPECT_EQ(pooled->dimensions, std::optional<std::uint32_t>(64));
  EXPECT_FALSE(pooled->normalize);

  request_final final;
  final.request = request_id{77};
  final.index = 1;
  final.reason = finish_reason::stop;
  final.stop_string = "END";
  final.text = "tail";
  final.usage = request_usage{5, 6, 4};
  final.queue_time_s = 0.125;
  final.finished = true;
  const request_final f = round_trip(system, final);
  EXPECT_EQ(f.request, request_id{77});
  EXPECT_EQ(f.index, 1u);
  EXPECT_EQ(f.reason, finish_reason::stop);
  EXPECT_EQ(f.stop_string, std::optional<std::string>("END"));
  EXPECT_EQ(f.text, "tail");
  EXPECT_EQ(f.usage.prompt_tokens, 5u);
  EXPECT_EQ(f.usage.completion_tokens, 6u);
  EXPECT_EQ(f.usage.cached_prompt_tokens, 4u);
  EXPECT_EQ(f.queue_time_s, 0.125);
  EXPECT_TRUE(f.finished);

  token_chunk chunk;
  chunk.request = request_id{3};
  chunk.token_ids = {4, 5};
  chunk.text = "ab";
  chunk.logprobs = {chunk_logprob{4, -0.5f, {{4, -0.5f}, {9, -1.75f}}},
                    chunk_logprob{5, -3.0f, {{7, -0.25f}}}};
  chunk.embedding = {0.5f, -0.25f};
  const token_chunk c = round_trip(system, chunk);
  EXPECT_EQ(c.embedding, chunk.embedding);
  EXPECT_EQ(c.request, request_id{3});
  EXPECT_EQ(c.token_ids, (std::vector<token_id>{4, 5}));
  EXPECT_EQ(c.text, "ab");
  ASSERT_EQ(c.logprobs.size(), 2u);
  EXPECT_EQ(c.logprobs[0].token, 4);
  EXPECT_EQ(c.logprobs[0].logprob, -0.5f);
  ASSERT_EQ(c.logprobs[0].top.size(), 2u);
  EXPECT_EQ(c.logprobs[0].top[1].token, 9);
  EXPECT_EQ(c.logprobs[0].top[1].logprob, -1.75f);
  EXPECT_EQ(c.logprobs[1].token, 5);
  EXPECT_EQ(c.logprobs[1].logprob, -3.0f);
  ASSERT_EQ(c.logprobs[1].top.size(), 1u);
  EXPECT_EQ(c.logprobs[1].top[0].token, 7);
  EXPECT_EQ(round_trip(system, request_id{123}), request_id{123});
  engine_stats stats;
  stats.num_free_blocks = 11;
  stats.executor_busy_s = 0.25;
  stats.iteration_tokens.observe(3);
  stats.iteration_tokens.observe(100000);
  const engine_stats s = round_trip(system, stats);
  EXPECT_EQ(s.num_free_blocks, 11u);
  EXPECT_EQ(s.executor_busy_s, 0.25);
  EXPECT_EQ(s.iteration_tokens.upper_bounds, stats.iteration_tokens.upper_bounds);
  EXPECT_EQ(s.iteration_tokens.counts, stats.iteration_tokens.counts);
  EXPECT_EQ(s.iteration_tokens.count, 2u);
  EXPECT_EQ(s.iteration_tokens.sum, 100003.0);
  const shutdown_report r = round_trip(system, shutdown_report{1, 2, 0, true});
  EXPECT_EQ(r.num_drained, 1u);
  EXPECT_EQ(r.num_cancelled, 2u);
  EXPECT_TRUE(r.timed_out);
}

TEST(engine_messages, lifecycle_events_and_the_opt_in_survive_serialization) {
  caf::actor_system_config cfg;
  add_engine_message_types(cfg);
  caf::actor_system system{cfg};
  generation_request req = greedy_request({1, 2}, 3);
  req.report_lifecycle = true;
  EXPECT_TRUE(round_trip(system, req).report_lifecycle);
  EXPECT_FALSE(round_trip(system, greedy_request({1, 2}, 3)).report_lifecycle);

  request_lifecycle event;
  event.request = request_id{9};
  event.index = 2;
  event.stage = lifecycle_stage::resumed;
  event.num_cached_tokens = 48;
  event.num_computed_tokens_lost = 7;
  event.step = 12345678901ULL;
  event.time = 1.5;
  const request_lifecycle got = round_trip(system, event);
  EXPECT_EQ(got.request, request_id{9});
  EXPECT_EQ(got.index, 2u);
  EXPECT_EQ(got.stage, lifecycle_stage::resumed);
  EXPECT_EQ(got.num_cached_tokens, 48u);
  EXPECT_EQ(got.num_computed_tokens_lost, 7u);
  EXPECT_EQ(got.step, 12345678901ULL);
  EXPECT_EQ(got.time, 1.5);
}

TEST(engine_messages, engine_errors_render_with_their_category_and_context) {
  caf::actor_system_config cfg;
  add_engine_message_types(cfg);
  caf::actor_system system{cfg};
  const caf::error err = make_error(engine_errc::queue_full, "limit 2");
  EXPECT_EQ(engine_errc_of(err), engine_errc::queue_full);
  EXPECT_EQ(error_message(err), "limit 2");
  EXPECT_EQ(system.render(err), "pagedserve: queue_full (limit 2)");
  EXPECT_EQ(engine_errc_of(caf::make_error(caf::sec::request_timeout)), std::nullopt);
}

}  // namespace
}  // namespace pagedserve::actors
