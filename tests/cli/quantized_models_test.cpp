// Quantized checkpoints end to end, as a user meets them: `pagedserve quantize` writes each
// format from the shipped demo model together with the fp32 folder of its exact
// dequantization; `pagedserve eval` then finds the quantized folder's logits equal to the
// fp32 one's within fp32 rounding (the readers, the repacking and the kernels against an
// independent twin), and every corrupt or inconsistent folder is refused at start-up with
// exit status 2 and a message naming the file, the field and the value.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "kernels/cpu/simd/simd_kernels.h"
#include "tests/runtime/model/model_test_support.h"
#include "tests/support/cli_runner.h"
#include "tests/support/temp_dir.h"

namespace pagedserve::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

const fs::path demo_model = pagedserve::testing::source_dir() / "models" / "pagedserve-demo";

const std::string workload_lines =
    "{\"text\": \"The jury said it did find that the city had been wise in its choice.\"}\n"
    "{\"text\": \"She walked down the road to the old house, where her mother waited.\"}\n"
    "{\"text\": \"In the spring of that year the committee met to discuss the new plan.\"}\n";

class QuantizedModels : public ::testing::Test {
 protected:
  // `pagedserve quantize` of the demo model into <dir>/<name> and its twin <dir>/<name>-fp32.
  fs::path quantize(const std::string& name, const std::string& method_args) {
    const fs::path out = dir_.path() / name;
    const cli_result r =
        run_pagedserve("quantize --model " + demo_model.string() + " --out " + out.string() +
                       " --dequantized-out " + out.string() + "-fp32 " + method_args + " 2>&1");
    EXPECT_EQ(r.exit_status, 0) << r.out;
    return out;
  }

  json::object eval(const fs::path& model, const std::string& reference_args) {
    const fs::path workload = dir_.path() / "workload.jsonl";
    std::ofstream(workload) << workload_lines;
    const cli_result r = run_pagedserve("eval --model " + model.string() + " " + reference_args +
                                        " --workload " + workload.string() + " --json");
    EXPECT_EQ(r.exit_status, 0) << r.out;
    return r.exit_status == 0 ? json::parse(r.out).as_object() : json::object{};
  }

  temp_dir dir_{"pagedserve-quantized-models"};
};

struct format_case {
  std::string name;
  std::string args;
};

// Names the case in test output (gtest would print the struct's bytes).
void PrintTo(const format_case& c, std::ostream* out) { *out << c.name << ": " << c.args; }

class EveryFormat : public QuantizedModels, public ::testing::WithParamInterface<format_case> {};

TEST_P(EveryFormat, MatchesItsDequantizedTwinAndDiffersFromTheOriginal) {
  const fs::path model = quantize(GetParam().name, GetParam().args);
  const json::object twin = eval(model, "--reference " + model.string() + "-fp32");
  ASSERT_FALSE(twin.empty());
  EXPECT_EQ(twin.at("top1_agreement").to_number<double>(), 1.0);
  EXPECT_LE(twin.at("max_abs_logit_diff").to_number<double>(), 1e-3);
  // The weights did change: against the original the distributions differ.
  const json::object original = eval(model, "--reference " + demo_model.string());
  ASSERT_FALSE(original.empty());
  EXPECT_GT(original.at("mean_kl").to_number<double>(), 1e-7);
  EXPECT_GT(original.at("top1_agreement").to_number<double>(), 0.5);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, EveryFormat,
    ::testing::Values(
        format_case{"awq", "--method awq --group-size 64"},
        format_case{"gptq_sym", "--method gptq --group-size 64 --sym"},
        format_case{"gptq_asym_act_order", "--method gptq --group-size 64 --asym --desc-act"},
        format_case{"gptq_v2_asym", "--method gptq_v2 --group-size 64 --asym"},
        format_case{"gptq_v2_int8_act_order",
                    "--method gptq_v2 --bits 8 --group-size 64 --sym --desc-act"},
        format_case{"fp8_block", "--method fp8-block"},
        format_case{"fp8_dynamic", "--method fp8-dynamic"},
        format_case{"fp8_dynamic_tensor", "--method fp8-dynamic --weight-strategy tensor"},
        format_case{"fp8_weight_only", "--method fp8-weight-only"}),
    [](const ::testing::TestParamInfo<format_case>& param) { return param.param.name; });

TEST_F(QuantizedModels, Fp8AtLoadQuantizesA16BitCheckpoint) {
  const json::object out =
      eval(demo_model, "--quantization fp8 --reference " + demo_model.string());
  ASSERT_FALSE(out.empty());
  EXPECT_GT(out.at("mean_kl").to_number<double>(), 1e-9);
  EXPECT_GT(out.at("top1_agreement").to_number<double>(), 0.9);
}

// fp8 KV against the fp32 cache of the same weights: close but not equal (scales 1.0: the
// demo model's keys and values are far inside +-448).
TEST_F(QuantizedModels, Fp8KvCacheIsComparedAgainstTheAutoCache) {
  const json::object out =
      eval(demo_model, "--kv-cache-dtype fp8_e4m3 --reference " + demo_model.string());
  ASSERT_FALSE(out.empty());
  EXPECT_GT(out.at("mean_kl").to_number<double>(), 1e-9);
  EXPECT_GT(out.at("top1_agreement").to_number<double>(), 0.9);
}

TEST_F(QuantizedModels, GenerateReportsTopLogprobsThatMatchTheTwin) {
  const fs::path model = quantize("awq", "--method awq --group-size 64");
  auto run = [](const fs::path& m) {
    const cli_result r =
        run_pagedserve("generate --model " + m.string() +
                       " --prompt-ids 4091,464,1290 --max-tokens 6 --temperature 0 --json "
                       "--logprobs 3");
    EXPECT_EQ(r.exit_status, 0) << r.out;
    return json::parse(r.out).as_object();
  };
  const json::object quantized = run(model);
  const json::object twin = run(fs::path(model.string() + "-fp32"));
  EXPECT_EQ(quantized.at("token_ids"), twin.at("token_ids"));
  const json::array& a = quantized.at("logprobs").as_array();
  const json::array& b = twin.at("logprobs").as_array();
  ASSERT_EQ(a.size(), 6U);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const json::array& top_a = a[i].at("top_logprobs").as_array();
    const json::array& top_b = b[i].at("top_logprobs").as_array();
    ASSERT_EQ(top_a.size(), 3U);
    for (std::size_t j = 0; j < 3; ++j) {
      EXPECT_EQ(top_a[j].at("token_id"), top_b[j].at("token_id"));
      EXPECT_NEAR(top_a[j].at("logprob").to_number<double>(),
                  top_b[j].at("logprob").to_number<double>(), 1e-3);
    }
  }
}

// cpu_activation_dtype int8: where the processor multiplies int4 by int8 (AVX512-VNNI) the
// activations are quantized per group (~0.4% per element), which moves logprobs visibly but
// little; elsewhere they stay fp32 and the logprobs are the exact ones.
TEST_F(QuantizedModels, Int8ActivationsMoveLogprobsLittleWhereTheProcessorHasVnni) {
  const fs::path model = quantize("awq", "--method awq --group-size 64");
  auto logprobs = [&](const std::string& activations) {
    const cli_result r = run_pagedserve(
        "generate --model " + model.string() +
        " --prompt-ids 4091,464,1290 --max-tokens 6 --temperature 0 --json --logprobs 1 "
        "--ignore-eos --cpu-activation-dtype " +
        activations);
    EXPECT_EQ(r.exit_status, 0) << r.out;
    const json::value parsed = json::parse(r.out);
    std::vector<double> out;
    for (const json::value& step : parsed.at("logprobs").as_array()) {
      out.push_back(step.at("logprob").to_number<double>());
    }
    return out;
  };
  const std::vector<double> exact = logprobs("fp32");
  const std::vector<double> int8 = logprobs("int8");
  ASSERT_EQ(exact.size(), 6U);
  ASSERT_EQ(int8.size(), 6U);
  double largest = 0.0;
  for (std::size_t i = 0; i < exact.size(); ++i) {
    largest = std::max(largest, std::abs(exact[i] - int8[i]));
  }
  if (kernels::cpu::simd::active_kernels().int4_times_int8_x) {
    EXPECT_GT(largest, 1e-4);
    EXPECT_LT(largest, 0.2);
  } else {
    EXPECT_LT(largest, 1e-6);
  }
}

// Benchmarks of a shape without weights: a folder holding only config.json, quantized from
// seeded random weights, loads and generates.
TEST_F(QuantizedModels, DummyWeightsOfAShapeAreQuantizedIntoALoadableFolder) {
  const fs::path shape = dir_.path() / "shape";
  fs::create_directories(shape);
  fs::copy_file(demo_model / "config.json", shape / "config.json");
  const fs::path out = dir_.path() / "shape-gptq";
  const cli_result made =
      run_pagedserve("quantize --model " + shape.string() + " --out " + out.string() +
                     " --method gptq --group-size 64 --dummy-weights 2>&1");
  ASSERT_EQ(made.exit_status, 0) << made.out;
  const cli_result r = run_pagedserve("generate --model " + out.string() +
                                      " --prompt-ids 4091,17 --max-tokens 3 --json");
  ASSERT_EQ(r.exit_status, 0) << r.out;
  EXPECT_EQ(json::parse(r.out).at("token_ids").as_array().size(), 3U);
}

// ---- corrupt and inconsistent folders ----

json::object read_json(const fs::path& path) { return json::parse(read_file(path)).as_object(); }

void write_json(const fs::path& path, const json::object& object) {
  write_file(path, json::serialize(object));
}

void edit_quantization_config(const fs::path& model, const char* key, json::value value) {
  json::object config = read_json(model / "config.json");
  config["quantization_config"].as_object()[key] = std::move(value);
  write_json(model / "config.json", config);
}

void expect_refused(const fs::path& model, const std::string& message) {
  const cli_result r =
      run_pagedserve("generate --model " + model.string() + " --prompt-ids 4091 2>&1");
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << "expected '" << message << "' in\n" << r.out;
}

TEST_F(QuantizedModels, UnsupportedConfigValuesAreRefused) {
  const fs::path gptq = quantize("gptq3", "--method gptq --group-size 64 --sym");
  edit_quantization_config(gptq, "bits", 3);
  expect_refused(gptq, "bits");
  expect_refused(gptq, "3");
  const fs::path awq = quantize("awq_gemv", "--method awq --group-size 64");
  edit_quantization_config(awq, "version", "gemv");
  expect_refused(awq, "gemv");
}

TEST_F(QuantizedModels, GptqZerosThatContradictTheFormatAreRefused) {
  const fs::path v1 = quantize("gptq_v1", "--method gptq --group-size 64 --sym");
  edit_quantization_config(v1, "checkpoint_format", "gptq_v2");
  expect_refused(v1, "contradicts");
}

TEST_F(QuantizedModels, AQweightOfAnotherShapeThanTheConfigIsRefused) {
  const fs::path awq = quantize("awq_shape", "--method awq --group-size 64");
  json::object config = read_json(awq / "config.json");
  config["intermediate_size"] = 768;
  write_json(awq / "config.json", config);
  expect_refused(awq, "gate_proj.qweight' has shape [256, 88] but the config implies [256, 96]");
}

TEST_F(QuantizedModels, MissingAndNanScalesAreRefused) {
  const fs::path awq = quantize("awq_missing", "--method awq --group-size 64");
  raw_safetensors file = raw_safetensors::read(awq / "model.safetensors");
  file.header.erase("model.layers.2.mlp.up_proj.scales");
  file.write(awq / "model.safetensors");
  expect_refused(awq, "'model.layers.2.mlp.up_proj.scales' is missing");

  const fs::path fp8 = quantize("fp8_nan", "--method fp8-block");
  raw_safetensors block = raw_safetensors::read(fp8 / "model.safetensors");
  const std::string name = "model.layers.1.self_attn.o_proj.weight_scale_inv";
  const auto begin =
      block.header.at(name).at("data_offsets").as_array()[0].to_number<std::size_t>();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(block.data.data() + begin, &nan, sizeof nan);
  block.write(fp8 / "model.safetensors");
  expect_refused(fp8, "'" + name + "' holds scale nan");
}

TEST_F(QuantizedModels, ServeRefusesACorruptFolderWithExitStatus2) {
  const fs::path gptq = quantize("gptq_serve", "--method gptq --group-size 64 --sym");
  edit_quantization_config(gptq, "bits", 3);
  const cli_result r = run_pagedserve("serve --model " + gptq.string() + " --port 0 2>&1");
  EXPECT_EQ(r.exit_status, 2) << r.out;
  EXPECT_NE(r.out.find("bits"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace pagedserve::testing
