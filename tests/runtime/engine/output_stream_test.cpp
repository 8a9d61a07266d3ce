// output_stream with the real tokenizers. The expected text is never our own output: it is
// tokenizer::decode of all the ids (checked against the HF goldens in the tokenizer tests)
// cut at the first occurrence of any stop string, found with std::string::find.

#include "runtime/engine/output_stream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>

#include <gtest/gtest.h>

#include "runtime/tokenizer/detokenizer.h"
#include "runtime/tokenizer/utf8.h"
#include "tests/support/fixtures.h"

namespace pagedserve {
namespace {

using stop_list = std::vector<std::string>;

std::shared_ptr<const tokenizer> family_tokenizer(const std::string& family) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const tokenizer>> loaded;
  const std::lock_guard lock(mutex);
  auto& slot = loaded[family];
  if (!slot) {
    auto tok = tokenizer::load(testing::tokenizers_dir() / family);
    if (!tok) {
      std::fprintf(stderr, "cannot load tokenizer %s: %s\n", family.c_str(),
                   tok.err().message.c_str());
      std::abort();
    }
    slot = *tok;
  }
  return slot;
}

// The reference: `full` cut at the earliest occurrence of any stop string.
struct reference {
  std::string text;
  std::optional<std::size_t> stop_at;
};

reference cut_at_first_stop(const std::string& full, const stop_list& stops) {
  std::size_t first = std::string::npos;
  for (const auto& stop : stops) first = std::min(first, full.find(stop));
  if (first == std::string::npos) return {full, std::nullopt};
  return {full.substr(0, first), first};
}

// What the stream produced, checked delta by delta on the way.
struct streamed {
  std::string text;  // every delta's text, then flush()
  std::optional<std::string> stop_string;
  std::optional<std::size_t> stop_push;    // the push that reported it
  std::vector<std::string> emitted_after;  // text emitted after each push (cumulative)
};

streamed run_stream(const std::shared_ptr<const tokenizer>& tok, const std::vector<token_id>& ids,
                    const stop_list& stops, std::span<const token_id> prompt = {}) {
  output_stream stream(tok, {stops, true}, prompt);
  streamed out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const bool stopped_before = out.stop_string.has_value();
    const output_stream::delta d = stream.push(ids[i]);
    if (stopped_before) {
      EXPECT_TRUE(d.token_ids.empty() && d.text.empty() && !d.stop_string) << "push " << i;
    } else {
      EXPECT_EQ(d.token_ids, std::vector<token_id>{ids[i]}) << "push " << i;
      EXPECT_TRUE(utf8::is_valid(d.text)) << "invalid UTF-8 delta at push " << i;
      if (d.stop_string) {
        out.stop_string = d.stop_string;
        out.stop_push = i;
      }
    }
    EXPECT_EQ(stream.stopped(), out.stop_string.has_value()) << "push " << i;
    out.text += d.text;
    out.emitted_after.push_back(out.text);
  }
  const std::string rest = stream.flush();
  EXPECT_TRUE(utf8::is_valid(rest));
  if (out.stop_string) {
    EXPECT_EQ(rest, "");
  }
  out.text += rest;
  EXPECT_EQ(stream.flush(), "") << "a second flush has nothing left";
  return out;
}

// End offset of each token's text in decode(ids): decode of every prefix, which for these
// ASCII sentences is a prefix of the whole.
std::vector<std::size_t> token_ends(const tokenizer& tok, const std::vector<token_id>& ids) {
  const std::string full = tok.decode(ids, true);
  std::vector<std::size_t> ends;
  for (std::size_t k = 1; k <= ids.size(); ++k) {
    const std::string prefix = tok.decode(std::span(ids).first(k), true);
    EXPECT_TRUE(full.starts_with(prefix)) << "prefix " << k;
    ends.push_back(prefix.size());
  }
  return ends;
}

class output_stream_family : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { tok_ = family_tokenizer(GetParam()); }

  std::vector<token_id> encode(const std::string& text) const { return tok_->encode(text, true); }
  std::string decode(const std::vector<token_id>& ids) const { return tok_->decode(ids, true); }

  // Streams ids and checks the text against the reference; returns the stream's result.
  streamed expect_matches_reference(const std::vector<token_id>& ids, const stop_list& stops) {
    const reference ref = cut_at_first_stop(decode(ids), stops);
    streamed got = run_stream(tok_, ids, stops);
    EXPECT_EQ(got.text, ref.text);
    EXPECT_EQ(got.stop_string.has_value(), ref.stop_at.has_value());
    if (got.stop_string && ref.stop_at) {
      EXPECT_EQ(decode(ids).compare(*ref.stop_at, got.stop_string->size(), *got.stop_string), 0)
          << "the reported stop string is not the one at the cut";
    }
    return got;
  }

  // A stop string from one byte into token `first` to one byte into token `first + n - 1`
  // (n == 1: the inside of token `first`, without its first and last byte). Picks the first
  // token where that text does not occur earlier and every token involved is long enough.
  std::string pick_stop(const std::vector<token_id>& ids, std::size_t n) {
    const std::string full = decode(ids);
    const auto ends = token_ends(*tok_, ids);
    for (std::size_t k = 1; k + n <= ids.size(); ++k) {
      bool long_enough = true;
      for (std::size_t j = k; j < k + n; ++j) long_enough &= ends[j] - ends[j - 1] >= 4;
      if (!long_enough) continue;
      const std::size_t begin = ends[k - 1] + 1;
      const std::size_t end = n == 1 ? ends[k] - 1 : ends[k + n - 2] + 1;
      const std::string stop = full.substr(begin, end - begin);
      if (full.find(stop) == begin) return stop;
    }
    ADD_FAILURE() << "no token run fits in the test sentence";
    return "?";
  }

  std::shared_ptr<const tokenizer> tok_;
};

const std::string sentence =
    "The quick brown fox jumps over the lazy dog while seventeen penguins celebrate loudly.";

TEST_P(output_stream_family, WithoutStopStringsTheStreamIsTheDecode) {
  const auto ids = encode(sentence);
  expect_matches_reference(ids, {});
  expect_matches_reference(ids, {"@@@", "dogs", "penguins!"});
}

TEST_P(output_stream_family, StopStringInsideOneToken) {
  const auto ids = encode(sentence);
  const auto got = expect_matches_reference(ids, {pick_stop(ids, 1)});
  EXPECT_TRUE(got.stop_string.has_value());
}

TEST_P(output_stream_family, StopStringSpanningTwoAndThreeTokens) {
  const auto ids = encode(sentence);
  for (const std::size_t n : {2, 3}) {
    SCOPED_TRACE(n);
    const auto got = expect_matches_reference(ids, {pick_stop(ids, n)});
    EXPECT_TRUE(got.stop_string.has_value());
  }
}

TEST_P(output_stream_family, StopStringAtTheVeryFirstToken) {
  const auto ids = encode(sentence);
  const std::size_t first_text = decode({ids[0]}).empty() ? 1 : 0;  // after a skipped BOS
  const std::string first = decode({ids[first_text]});
  ASSERT_GE(first.size(), 2u);
  const auto whole = expect_matches_reference(ids, {first});
  EXPECT_EQ(whole.text, "");
  EXPECT_EQ(whole.stop_push, first_text);
  const auto part = expect_matches_reference(ids, {first.substr(1)});
  EXPECT_EQ(part.stop_push, first_text);
}

// vLLM's min_tokens: the first min_tokens tokens' text is not searched for stop strings, so
// " quick" (inside them) does not stop the stream; "lazy" (after them) does.
TEST_P(output_stream_family, MinTokensLeavesTheFirstTokensUnsearched) {
  const auto ids = encode(sentence);
  const std::string full = decode(ids);
  const auto ends = token_ends(*tok_, ids);
  const std::size_t quick_end = full.find(" quick") + 6;
  std::uint32_t min_tokens = 0;
  while (ends[min_tokens] < quick_end) ++min_tokens;
  ++min_tokens;  // the token that completes " quick" is inside the first min_tokens
  ASSERT_LT(ends[min_tokens - 1], full.find("lazy"));
  output_stream stream(tok_, {{" quick", "lazy"}, true, min_tokens}, {});
  std::string text;
  std::optional<std::string> stop;
  for (const token_id id : ids) {
    output_stream::delta d = stream.push(id);
    text += d.text;
    if (d.stop_string) stop = d.stop_string;
  }
  text += stream.flush();
  EXPECT_EQ(stop, std::optional<std::string>("lazy"));
  EXPECT_EQ(text, full.substr(0, full.find("lazy")));
}

// vLLM's include_stop_str_in_output: the text ends with the stop string instead of before it.
TEST_P(output_stream_family, IncludeStopStrInOutputEndsTheTextWithTheStopString) {
  const auto ids = encode(sentence);
  const std::string full = decode(ids);
  for (const std::string& stop : {std::string("lazy"), pick_stop(ids, 2)}) {
    output_stream stream(tok_, {{stop}, true, 0, true}, {});
    std::string text;
    for (const token_id id : ids) text += stream.push(id).text;
    text += stream.flush();
    EXPECT_EQ(text, full.substr(0, full.find(stop) + stop.size())) << stop;
  }
}

TEST_P(output_stream_family, EarliestStopStringWins) {
  const auto ids = encode(sentence);
  const auto got = expect_matches_reference(ids, {"penguins", "lazy", "brown"});
  EXPECT_EQ(got.stop_string, "brown");
}

TEST_P(output_stream_family, StopStringStartingFirstBeatsOneCompletedFirst) {
  // "zy" is complete once " lazy" arrives, but "lazy do" starts earlier and completes with
  // " dog": the text ends before "lazy".
  const auto ids = encode(sentence);
  const std::string full = decode(ids);
  const auto ends = token_ends(*tok_, ids);
  const auto token_completing = [&](std::size_t text_end) {
    return std::ranges::lower_bound(ends, text_end) - ends.begin();
  };
  ASSERT_LT(token_completing(full.find("zy") + 2), token_completing(full.find("lazy do") + 7))
      << "the test needs \"zy\" complete on an earlier token than \"lazy do\"";
  const auto got = expect_matches_reference(ids, {"zy", "lazy do"});
  EXPECT_EQ(got.stop_string, "lazy do");
}

TEST_P(output_stream_family, MultiByteTextIsCutOnCharacters) {
  const auto ids = encode("naïve café 日本語 🙂 und Straße");
  EXPECT_EQ(expect_matches_reference(ids, {"日本"}).text, "naïve café ");
  EXPECT_EQ(expect_matches_reference(ids, {"🙂"}).text, "naïve café 日本語 ");
  EXPECT_EQ(expect_matches_reference(ids, {"é 日"}).text, "naïve caf");
  // A stop string that agrees with the text up to its end is held back, then flushed.
  const auto held = expect_matches_reference(ids, {"Straße!"});
  EXPECT_EQ(held.emitted_after.back(), "naïve café 日本語 🙂 und ");
}

TEST_P(output_stream_family, PrefixOverlapDoesNotLoseAMatch) {
  // One token per letter: after "a" "a" the held "aa" must still find "ab" / "aab".
  std::vector<token_id> ids;
  for (const char* letter : {"x", "a", "a", "a", "b", "y"}) {
    const auto id = tok_->token_to_id(letter);
    ASSERT_TRUE(id.has_value()) << letter;
    ids.push_back(*id);
  }
  ASSERT_EQ(decode(ids), "xaaaby");
  EXPECT_EQ(expect_matches_reference(ids, {"ab"}).text, "xaa");
  EXPECT_EQ(expect_matches_reference(ids, {"aab"}).text, "xa");
  EXPECT_EQ(expect_matches_reference(ids, {"aaab"}).text, "x");
  EXPECT_EQ(expect_matches_reference(ids, {"aaaa"}).text, "xaaaby");
}

TEST_P(output_stream_family, PushesAfterTheStopReturnNothing) {
  const auto ids = encode(sentence);
  const auto got = expect_matches_reference(ids, {"quick"});
  ASSERT_TRUE(got.stop_push.has_value());
  ASSERT_LT(*got.stop_push + 1, ids.size());
  // run_stream checked that every later delta is empty; the text stops growing.
  EXPECT_EQ(got.emitted_after.back(), got.emitted_after[*got.stop_push]);
}

TEST_P(output_stream_family, PromptIsContextOnly) {
  const auto prompt = encode("Question: what is six times seven?");
  const auto reply = tok_->encode(" The answer is 42. Done.", false);
  std::vector<token_id> all = prompt;
  all.insert(all.end(), reply.begin(), reply.end());
  const std::string full = decode(all);
  const std::string before = decode(prompt);
  ASSERT_TRUE(full.starts_with(before));
  const reference ref = cut_at_first_stop(full.substr(before.size()), {". Done"});
  const auto got = run_stream(tok_, reply, {". Done"}, prompt);
  EXPECT_EQ(got.text, ref.text);
  EXPECT_EQ(got.stop_string, ". Done");
}

// Random sentences and random stop strings (mostly substrings of the decoded text, cut on
// characters). Checked: the whole text equals the reference; after every push the emitted
// text is a prefix of the reference (no part of a stop string ever leaked) and lags the text
// decoded so far by less than the longest stop string; the stop is reported by a push exactly
// when the reference's match lies within the text the pushes produced.
TEST_P(output_stream_family, RandomStopStringsMatchTheReference) {
  const std::vector<std::string> words = {"the",    "cat",   "sat",   "on",   "a",      "mat",
                                          "hello",  "world", "naïve", "café", "日本語", "🙂",
                                          "Straße", "ёлка",  "42",    "3.14", "don't",  "\n",
                                          "aab",    "abab",  "quick", "!",    ",",      "the cat"};
  std::mt19937 rng(20261201);
  const auto pick = [&](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (std::size_t w = 0, n = 4 + pick(16); w < n; ++w) {
      text += (w == 0 || pick(4) == 0 ? "" : " ") + words[pick(words.size())];
    }
    const auto ids = tok_->encode(text, pick(2) == 0);
    const std::string full = decode(ids);
    std::vector<std::size_t> boundaries;  // character starts, and the end
    for (std::size_t pos = 0; pos < full.size(); pos += utf8::char_length(full[pos])) {
      boundaries.push_back(pos);
    }
    boundaries.push_back(full.size());
    stop_list stops;
    for (std::size_t k = 0, n = 1 + pick(3); k < n && boundaries.size() > 1; ++k) {
      const std::size_t first = pick(boundaries.size() - 1);
      const std::size_t last = std::min(boundaries.size() - 1, first + 1 + pick(8));
      std::string stop = full.substr(boundaries[first], boundaries[last] - boundaries[first]);
      stops.push_back(pick(4) == 0 ? stop + "#" : stop);  // some never match
    }
    SCOPED_TRACE("round " + std::to_string(round) + ": " + text);
    const reference ref = cut_at_first_stop(full, stops);
    const streamed got = run_stream(tok_, ids, stops);
    ASSERT_EQ(got.text, ref.text);

    std::size_t longest = 0;
    for (const auto& stop : stops) longest = std::max(longest, stop.size());
    detokenizer detok(tok_, true);
    std::string pushed;  // the text the pushes produced, independently of output_stream
    for (std::size_t i = 0; i < ids.size(); ++i) {
      pushed += detok.push(ids[i]);
      const std::string& emitted = got.emitted_after[i];
      ASSERT_TRUE(ref.text.starts_with(emitted)) << "leaked past the reference at push " << i;
      const std::size_t floor =
          std::min(ref.text.size(), pushed.size() - std::min(pushed.size(), longest - 1));
      ASSERT_GE(emitted.size(), floor) << "held back more than a stop string at push " << i;
    }
    bool match_in_pushed = false;
    for (const auto& stop : stops) {
      match_in_pushed |= ref.stop_at && full.compare(*ref.stop_at, stop.size(), stop) == 0 &&
                         *ref.stop_at + stop.size() <= pushed.size();
    }
    ASSERT_EQ(got.stop_string.has_value(), match_in_pushed);
    if (got.stop_string) {
      ASSERT_EQ(full.compare(*ref.stop_at, got.stop_string->size(), *got.stop_string), 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(families, output_stream_family,
                         ::testing::Values("llama2", "llama3", "qwen3"));

TEST(output_stream, WithoutTokenizerOnlyIdsFlow) {
  output_stream stream(nullptr, {{"a", "b"}}, {});
  for (const token_id id : {token_id{1}, token_id{2}, token_id{3}}) {
    const auto d = stream.push(id);
    EXPECT_EQ(d.token_ids, std::vector<token_id>{id});
    EXPECT_EQ(d.text, "");
    EXPECT_FALSE(d.stop_string.has_value());
  }
  EXPECT_FALSE(stream.stopped());
  EXPECT_EQ(stream.flush(), "");
}

}  // namespace
}  // namespace pagedserve
