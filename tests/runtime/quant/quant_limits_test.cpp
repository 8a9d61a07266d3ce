// Group sizes and block shapes of a quantization config are capped (docs/model-folder-limits.md)
// before the readers divide by them or size scale tables from them: a hostile value is a
// refusal naming the key and the value.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "runtime/quant/quant_spec.h"

namespace pagedserve::quant {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

error refusal_of(const std::string& json) {
  result<quant_spec> spec = parse_quant_spec(boost::json::parse(json).as_object(), "config.json");
  EXPECT_FALSE(spec.ok()) << json;
  return spec.ok() ? error{} : spec.err();
}

TEST(quant_limits, GptqGroupSizePastTheCapIsRefused) {
  const error e =
      refusal_of(R"({"quant_method": "gptq", "bits": 4, "group_size": 9223372036854775807})");
  EXPECT_EQ(e.code, error_code::invalid_argument);
  EXPECT_THAT(e.message, AllOf(HasSubstr("config.json"), HasSubstr("'group_size'"),
                               HasSubstr("9223372036854775807"), HasSubstr("1048576")));
}

TEST(quant_limits, Fp8BlockShapePastTheCapIsRefused) {
  const error e = refusal_of(
      R"({"quant_method": "fp8", "activation_scheme": "dynamic",
          "weight_block_size": [128, 4611686018427387904]})");
  EXPECT_THAT(e.message, AllOf(HasSubstr("'weight_block_size'"), HasSubstr("4611686018427387904"),
                               HasSubstr("1048576")));
  EXPECT_THAT(refusal_of(R"({"quant_method": "fp8", "activation_scheme": "dynamic",
                             "weight_block_size": "128x99999999999"})")
                  .message,
              HasSubstr("99999999999"));
}

TEST(quant_limits, RealGroupSizesStillParse) {
  for (const char* json : {R"({"quant_method": "gptq", "bits": 4, "group_size": 128})",
                           R"({"quant_method": "gptq", "bits": 8, "group_size": -1})",
                           R"({"quant_method": "fp8", "activation_scheme": "dynamic",
                               "weight_block_size": [128, 128]})"}) {
    result<quant_spec> spec = parse_quant_spec(boost::json::parse(json).as_object(), "config.json");
    EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.err().message);
  }
}

}  // namespace
}  // namespace pagedserve::quant
