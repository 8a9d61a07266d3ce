// Hostile tokenizer files (docs/model-folder-limits.md): token ids past the vocabulary, a
// tokenizer.json that is not a regular file or is too large. Each is refused with an error
// naming the file, the field and the value, before a table is sized by it. Runs under ASan.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "runtime/model/model_limits.h"
#include "runtime/tokenizer/tokenizer.h"
#include "tests/support/temp_dir.h"

namespace pagedserve {
namespace {

using pagedserve::testing::temp_dir;
using ::testing::AllOf;
using ::testing::HasSubstr;

// tokenizer.json with the given vocab, added_tokens and post_processor (JSON texts).
std::string tokenizer_json(const std::string& vocab, const std::string& added = "[]",
                           const std::string& post = "null") {
  return R"({"model": {"type": "BPE", "vocab": )" + vocab +
         R"(, "merges": ["a b"]}, "added_tokens": )" + added + R"(, "post_processor": )" + post +
         "}";
}

constexpr const char* small_vocab = R"({"a": 0, "b": 1, "ab": 2})";

result<std::shared_ptr<const tokenizer>> load_text(const temp_dir& dir, const std::string& text) {
  std::ofstream(dir / "tokenizer.json") << text;
  return tokenizer::load(dir.path());
}

error load_error(const std::string& text) {
  const temp_dir dir;
  auto tok = load_text(dir, text);
  EXPECT_FALSE(tok.ok()) << text;
  if (tok.ok()) return error{};
  EXPECT_THAT(tok.err().message, HasSubstr((dir / "tokenizer.json").string()));
  return tok.err();
}

// The failing class of issue 43: the id table was sized by the largest id (4e9 -> 64 GB).
TEST(hostile_tokenizer, HugeVocabularyIdIsRefusedBeforeTheIdTableIsSized) {
  const error e = load_error(tokenizer_json(R"({"a": 0, "b": 1, "ab": 4000000000})"));
  EXPECT_EQ(e.code, error_code::corrupt_data);
  EXPECT_THAT(e.message, AllOf(HasSubstr("model.vocab"), HasSubstr("'ab'"), HasSubstr("4000000000"),
                               HasSubstr("[0, 1027)")));
  // Within int32 but far past the entries: 2e9 ids of 24 bytes each.
  EXPECT_THAT(load_error(tokenizer_json(R"({"a": 0, "b": 1, "ab": 2000000000})")).message,
              AllOf(HasSubstr("'ab'"), HasSubstr("2000000000")));
  EXPECT_THAT(load_error(tokenizer_json(R"({"a": 0, "b": -1, "ab": 2})")).message,
              AllOf(HasSubstr("'b'"), HasSubstr("-1")));
}

// Ids may leave holes (HF accepts any id), up to model_limits::max_token_id_holes past the
// entries and added tokens; added tokens widen the range by one each.
TEST(hostile_tokenizer, IdsMayLeaveBoundedHoles) {
  const temp_dir dir;
  auto holes = load_text(dir, tokenizer_json(R"({"a": 0, "b": 1, "ab": 1026})"));
  ASSERT_TRUE(holes.ok()) << holes.err().message;
  EXPECT_EQ((*holes)->encode("ab", false), (std::vector<token_id>{1026}));
  EXPECT_THAT(load_error(tokenizer_json(R"({"a": 0, "b": 1, "ab": 1027})")).message,
              AllOf(HasSubstr("'ab'"), HasSubstr("has id 1027"), HasSubstr("[0, 1027)")));
  auto widened =
      load_text(dir, tokenizer_json(R"({"a": 0, "b": 1, "ab": 1027})",
                                    R"([{"id": 2, "content": "<s>", "special": true}])"));
  ASSERT_TRUE(widened.ok()) << widened.err().message;
  EXPECT_EQ((*widened)->encode("ab<s>", false), (std::vector<token_id>{1027, 2}));
}

TEST(hostile_tokenizer, AddedTokenIdsOutOfRangeAreRefused) {
  for (const char* id : {"-5", "4000000000", "5000"}) {
    const error e = load_error(
        tokenizer_json(small_vocab, std::string(R"([{"id": )") + id + R"(, "content": "<s>"}])"));
    EXPECT_THAT(e.message, AllOf(HasSubstr("added_tokens"), HasSubstr("'<s>'"), HasSubstr(id),
                                 HasSubstr("[0, 1028)")));
  }
}

TEST(hostile_tokenizer, TemplateProcessingIdsOutOfRangeAreRefused) {
  const std::string post = R"({"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
    "special_tokens": {"<s>": {"id": "<s>", "ids": [-3], "tokens": ["<s>"]}}})";
  EXPECT_THAT(load_error(tokenizer_json(small_vocab, "[]", post)).message,
              AllOf(HasSubstr("TemplateProcessing"), HasSubstr("'<s>'"), HasSubstr("-3")));
}

TEST(hostile_tokenizer, NonRegularOrOversizedFilesAreRefused) {
  const temp_dir fifo_dir;
  ASSERT_EQ(::mkfifo((fifo_dir / "tokenizer.json").c_str(), 0600), 0);
  auto from_fifo = tokenizer::load(fifo_dir.path());
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_THAT(from_fifo.err().message,
              AllOf(HasSubstr("tokenizer.json"), HasSubstr("not a regular file")));

  const temp_dir folder_dir;
  std::filesystem::create_directory(folder_dir / "tokenizer.json");
  EXPECT_FALSE(tokenizer::load(folder_dir.path()).ok());

  const temp_dir big_dir;
  std::ofstream(big_dir / "tokenizer.json") << "{}";
  std::filesystem::resize_file(big_dir / "tokenizer.json",
                               model_limits::max_tokenizer_file_bytes + 1);  // sparse
  auto big = tokenizer::load(big_dir.path());
  ASSERT_FALSE(big.ok());
  EXPECT_THAT(big.err().message,
              AllOf(HasSubstr("tokenizer.json"),
                    HasSubstr(std::to_string(model_limits::max_tokenizer_file_bytes + 1))));
}

}  // namespace
}  // namespace pagedserve
