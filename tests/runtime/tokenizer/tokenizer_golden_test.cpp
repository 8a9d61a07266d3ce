// Every HF golden case: encode with and without special tokens, and decode, match exactly.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/runtime/tokenizer/test_tokenizers.h"

namespace pagedserve {
namespace {

using testing::family_tokenizer;
using testing::golden_cases;

// One test per family (each test process loads the tokenizer once: seconds under ASan).
class tokenizer_golden : public ::testing::TestWithParam<std::string> {};

TEST_P(tokenizer_golden, EncodeAndDecodeMatchHf) {
  const auto tok = family_tokenizer(GetParam());
  const auto& cases = golden_cases(GetParam());
  EXPECT_GE(cases.size(), 50u);
  for (const auto& c : cases) {
    SCOPED_TRACE("text: " + c.text);
    EXPECT_EQ(tok->encode(c.text, false), c.ids);
    EXPECT_EQ(tok->encode(c.text, true), c.ids_with_special);
    EXPECT_EQ(tok->decode(c.ids, false), c.decoded);
  }
}

INSTANTIATE_TEST_SUITE_P(families, tokenizer_golden,
                         ::testing::ValuesIn(testing::tokenizer_families));

}  // namespace
}  // namespace pagedserve
