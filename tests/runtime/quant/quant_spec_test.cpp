// The configs below are written as their producers write them (docs/design/QUANTIZATION.md
// sections 1-3): AutoAWQ's to_transformers_dict, AutoGPTQ's and GPTQModel's quantize configs,
// HF FineGrainedFP8 (Qwen3-FP8) and llm-compressor's FP8 presets. Each refusal is checked for
// its error code and for naming the key and the value.
#include "runtime/quant/quant_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "tests/support/temp_dir.h"

namespace pagedserve::quant {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view source = "model/config.json: quantization_config";

constexpr const char* autoawq = R"({"quant_method": "awq", "zero_point": true,
  "group_size": 128, "bits": 4, "version": "gemm", "modules_to_not_convert": null})";

constexpr const char* autogptq_desc_act = R"({"bits": 4, "group_size": 128,
  "damp_percent": 0.01, "desc_act": true, "static_groups": false, "sym": true,
  "true_sequential": true, "model_name_or_path": null, "model_file_base_name": "model",
  "quant_method": "gptq", "checkpoint_format": "gptq"})";

constexpr const char* gptqmodel_v2 = R"({"bits": 4, "dynamic": null, "group_size": 128,
  "desc_act": false, "sym": false, "lm_head": false, "quant_method": "gptq",
  "checkpoint_format": "gptq_v2", "format": "gptq_v2", "method": "gptq",
  "pack_dtype": "int32", "meta": {"quantizer": ["gptqmodel:2.2.0"],
  "uri": "https://github.com/modelcloud/gptqmodel", "damp_percent": 0.01,
  "damp_auto_increment": 0.0025, "static_groups": false, "true_sequential": true,
  "mse": 0.0}})";

constexpr const char* qwen3_fp8 = R"({"activation_scheme": "dynamic",
  "modules_to_not_convert": null, "fmt": "e4m3", "quant_method": "fp8",
  "weight_block_size": [128, 128]})";

constexpr const char* fp8_dynamic_group = R"({"targets": ["Linear"],
  "weights": {"num_bits": 8, "type": "float", "symmetric": true, "strategy": "channel",
    "dynamic": false, "group_size": null, "block_structure": null, "observer": "minmax",
    "observer_kwargs": {}, "actorder": null},
  "input_activations": {"num_bits": 8, "type": "float", "symmetric": true,
    "strategy": "token", "dynamic": true, "group_size": null, "block_structure": null,
    "observer": null, "observer_kwargs": {}, "actorder": null},
  "output_activations": null, "format": "float-quantized"})";

const std::string llm_compressor_fp8_dynamic = std::string(R"({
  "quant_method": "compressed-tensors", "format": "float-quantized",
  "quantization_status": "compressed", "global_compression_ratio": null,
  "config_groups": {"group_0": )") + fp8_dynamic_group +
                                               R"(},
  "ignore": ["lm_head", "re:.*mlp.gate$"], "kv_cache_scheme": null,
  "sparsity_config": {}, "transform_config": {}, "version": "0.12.2"})";

boost::json::object object_of(std::string_view json) {
  return boost::json::parse(json).as_object();
}

quant_spec parse_ok(const boost::json::object& config) {
  result<quant_spec> spec = parse_quant_spec(config, source);
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.err().message);
  return spec.ok() ? *spec : quant_spec{};
}

quant_spec parse_ok(std::string_view json) { return parse_ok(object_of(json)); }

// `base` with the key at JSON pointer `pointer` set to `value_json`.
boost::json::object with(boost::json::object base, std::string_view pointer,
                         std::string_view value_json) {
  boost::json::value root(std::move(base));
  const std::size_t slash = pointer.rfind('/');
  std::error_code ec;
  boost::json::value* parent = root.find_pointer(pointer.substr(0, slash), ec);
  EXPECT_NE(parent, nullptr) << pointer;
  parent->as_object()[pointer.substr(slash + 1)] = boost::json::parse(value_json);
  return std::move(root.as_object());
}

boost::json::object with(std::string_view base, std::string_view pointer,
                         std::string_view value_json) {
  return with(object_of(base), pointer, value_json);
}

struct refusal {
  std::string pointer;  // the key changed in the base config
  std::string value;    // its new value, as JSON
  error_code code;
  std::vector<std::string> mentions;  // the message names the key and the value
};

void expect_refusals(std::string_view base, const std::vector<refusal>& cases) {
  for (const refusal& c : cases) {
    SCOPED_TRACE(c.pointer + " = " + c.value);
    result<quant_spec> spec = parse_quant_spec(with(base, c.pointer, c.value), source);
    ASSERT_FALSE(spec.ok());
    EXPECT_EQ(spec.err().code, c.code) << spec.err().message;
    EXPECT_THAT(spec.err().message, HasSubstr(std::string(source)));
    for (const std::string& part : c.mentions) EXPECT_THAT(spec.err().message, HasSubstr(part));
  }
}

constexpr error_code unsupported = error_code::unsupported;
constexpr error_code invalid = error_code::invalid_argument;

TEST(quant_spec, AutoAwqGemmConfig) {
  const quant_spec spec = parse_ok(autoawq);
  EXPECT_EQ(spec.method, quant_method::awq);
  EXPECT_EQ(spec.source, source);
  EXPECT_EQ(spec.bits, 4);
  EXPECT_EQ(spec.group_size, 128);
  EXPECT_TRUE(spec.has_zero_points);
  EXPECT_EQ(spec.weight_strategy, scale_strategy::group);
  EXPECT_TRUE(spec.ignored_substrings.empty());
  // Legacy keys, an upper-case version, group -1 and the keys transformers' AwqConfig adds.
  const quant_spec legacy = parse_ok(R"({"quant_method": "AWQ", "w_bit": 4,
    "q_group_size": -1, "version": "GEMM", "zero_point": false, "backend": "autoawq",
    "do_fuse": false, "fuse_max_seq_len": null, "modules_to_fuse": null,
    "exllama_config": null, "modules_to_not_convert": ["visual"]})");
  EXPECT_EQ(legacy.group_size, -1);
  EXPECT_FALSE(legacy.has_zero_points);
  EXPECT_EQ(legacy.ignored_substrings, std::vector<std::string>{"visual"});
}

TEST(quant_spec, AwqRefusals) {
  const std::string gemm_only = "only the GEMM layout loads";
  expect_refusals(autoawq,
                  {{"/bits", "8", unsupported, {"'bits'", "8"}},
                   {"/group_size", "256", unsupported, {"'group_size'", "256"}},
                   {"/group_size", "16", unsupported, {"'group_size'", "16"}},
                   {"/version", R"("gemv")", unsupported, {"'version'", "'gemv'", gemm_only}},
                   {"/version", R"("gemv_fast")", unsupported, {"'gemv_fast'", gemm_only}},
                   {"/version", R"("marlin")", unsupported, {"'marlin'", gemm_only}},
                   {"/version", R"("exllama")", unsupported, {"'exllama'", gemm_only}},
                   {"/version", R"("ipex")", unsupported, {"'ipex'", gemm_only}},
                   {"/backend", R"("llm-awq")", unsupported, {"'backend'", "'llm-awq'"}},
                   {"/modules_to_not_convert", "5", invalid, {"'modules_to_not_convert'", "5"}},
                   {"/quant_type", R"("int4")", unsupported, {"'quant_type'", "'int4'"}}});
  expect_refusals(R"({"quant_method": "awq", "w_bit": 3, "q_group_size": 128})",
                  {{"/q_group_size", "16", unsupported, {"'w_bit'", "3"}}});
}

TEST(quant_spec, AutoGptqSymmetricActOrder) {
  const quant_spec spec = parse_ok(autogptq_desc_act);
  EXPECT_EQ(spec.method, quant_method::gptq);
  EXPECT_EQ(spec.bits, 4);
  EXPECT_EQ(spec.group_size, 128);
  EXPECT_TRUE(spec.desc_act);
  EXPECT_FALSE(spec.has_zero_points);  // sym: the zero is the midpoint, not read
  EXPECT_TRUE(spec.zeros_stored_minus_one);
  EXPECT_FALSE(spec.lm_head_quantized);
  EXPECT_EQ(spec.weight_strategy, scale_strategy::group);
  // desc_act with one group per row is a no-op; an absent format means v1.
  const quant_spec per_row = parse_ok(with(autogptq_desc_act, "/group_size", "-1"));
  EXPECT_EQ(per_row.group_size, -1);
  EXPECT_FALSE(per_row.desc_act);
  EXPECT_TRUE(
      parse_ok(R"({"quant_method": "gptq", "bits": 8, "group_size": 32})").zeros_stored_minus_one);
}

TEST(quant_spec, GptqModelV2WithBothFormatKeys) {
  const quant_spec spec = parse_ok(gptqmodel_v2);
  EXPECT_EQ(spec.method, quant_method::gptq);
  EXPECT_FALSE(spec.zeros_stored_minus_one);
  EXPECT_TRUE(spec.has_zero_points);
  EXPECT_FALSE(spec.desc_act);
  // Empty overrides, every block linear listed (nested, prefixed) and transformers'
  // GPTQConfig calibration keys all load.
  boost::json::object config = with(gptqmodel_v2, "/dynamic", "{}");
  config["modules_in_block_to_quantize"] = boost::json::parse(
      R"([["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"], ["self_attn.o_proj"],
          ["mlp.gate_proj", "mlp.up_proj"], ["mlp.down_proj"]])");
  for (const char* key : {"use_exllama", "cache_block_outputs"}) config[key] = true;
  config["exllama_config"] = boost::json::parse(R"({"version": 1})");
  config["lm_head"] = true;
  config["unknown_but_empty"] = boost::json::array();
  EXPECT_TRUE(parse_ok(config).lm_head_quantized);
}

TEST(quant_spec, GptqRefusals) {
  expect_refusals(
      autogptq_desc_act,
      {{"/bits", "3", unsupported, {"'bits' is 3, which is not supported (4 or 8)"}},
       {"/bits", "2", unsupported, {"'bits'", "2"}},
       {"/group_size", "0", invalid, {"'group_size'", "0"}},
       {"/checkpoint_format", R"("marlin")", unsupported, {"'checkpoint_format'", "'marlin'"}},
       {"/checkpoint_format", R"("bitblas")", unsupported, {"'bitblas'"}},
       {"/format", R"("ipex")", invalid, {"'format'", "'ipex'", "'gptq'"}},
       {"/pack_dtype", R"("int16")", unsupported, {"'pack_dtype'", "'int16'"}},
       {"/is_marlin_format", "true", unsupported, {"'is_marlin_format'", "true"}},
       {"/dynamic", R"({"-:.*lm_head": {}})", unsupported, {"'dynamic'", "-:.*lm_head"}},
       {"/modules_in_block_to_quantize",
        R"([["self_attn.q_proj", "self_attn.k_proj",
          "self_attn.v_proj", "self_attn.o_proj"], ["mlp.gate_proj", "mlp.up_proj"]])",
        unsupported,
        {"'modules_in_block_to_quantize'", "'down_proj'"}},
       {"/act_order", "true", unsupported, {"'act_order'", "true"}}});
  // GPTQModel writes both keys; they must agree.
  expect_refusals(gptqmodel_v2, {{"/checkpoint_format",
                                  R"("gptq")",
                                  invalid,
                                  {"'format'", "'gptq_v2'", "checkpoint_format", "'gptq'"}},
                                 {"/format", R"("marlin")", invalid, {"'marlin'"}}});
  expect_refusals(R"({"quant_method": "gptq", "bits": 4, "group_size": 128})",
                  {{"/format", R"("marlin")", unsupported, {"'format'", "'marlin'"}},
                   {"/checkpoint_format", R"("ipex")", unsupported, {"'ipex'"}},
                   {"/group_size", "-2", invalid, {"'group_size'", "-2"}}});
}

TEST(quant_spec, HfFineGrainedFp8Blocks) {
  const quant_spec spec = parse_ok(qwen3_fp8);
  EXPECT_EQ(spec.method, quant_method::fp8);
  EXPECT_EQ(spec.weight_strategy, scale_strategy::block);
  EXPECT_EQ(spec.weight_block_rows, 128);
  EXPECT_EQ(spec.weight_block_cols, 128);
  EXPECT_EQ(spec.activations, activation_scheme::dynamic_per_group);
  EXPECT_EQ(spec.activation_group_size, 128);
  const quant_spec per_tensor = parse_ok(R"({"quant_method": "fp8",
    "activation_scheme": "static", "ignored_layers": ["model.layers.0.mlp.down_proj"]})");
  EXPECT_EQ(per_tensor.weight_strategy, scale_strategy::tensor);
  EXPECT_EQ(per_tensor.activations, activation_scheme::static_per_tensor);
  EXPECT_EQ(per_tensor.ignored_modules, std::vector<std::string>{"model.layers.0.mlp.down_proj"});
  const quant_spec dynamic = parse_ok(R"({"quant_method": "fp8", "activation_scheme": "dynamic"})");
  EXPECT_EQ(dynamic.activations, activation_scheme::dynamic_per_token);
}

TEST(quant_spec, Fp8Refusals) {
  expect_refusals(
      qwen3_fp8,
      {{"/activation_scheme", R"("static")", unsupported, {"'activation_scheme'", "'static'"}},
       {"/activation_scheme", R"("mixed")", unsupported, {"'activation_scheme'", "'mixed'"}},
       {"/fmt", R"("e5m2")", unsupported, {"'fmt'", "'e5m2'"}},
       {"/dequantize", "true", unsupported, {"'dequantize'", "true"}},
       {"/scale_fmt", R"("ue8m0")", unsupported, {"'scale_fmt'", "'ue8m0'"}},
       {"/weight_block_size", "[128]", invalid, {"'weight_block_size'", "[128]"}},
       {"/weight_block_size", "[128, 0]", invalid, {"'weight_block_size'", "[128,0]"}},
       {"/kv_scheme", R"("fp8")", unsupported, {"'kv_scheme'", "'fp8'"}}});
}

TEST(quant_spec, LlmCompressorFp8Dynamic) {
  const quant_spec spec = parse_ok(llm_compressor_fp8_dynamic);
  EXPECT_EQ(spec.method, quant_method::compressed_tensors);
  EXPECT_EQ(spec.weight_strategy, scale_strategy::channel);
  EXPECT_EQ(spec.activations, activation_scheme::dynamic_per_token);
  EXPECT_EQ(spec.ignored_modules, std::vector<std::string>{"lm_head"});
  EXPECT_EQ(spec.ignored_patterns, std::vector<std::string>{".*mlp.gate$"});
  EXPECT_TRUE(spec.quantizes("model.layers.0.mlp.gate_proj"));
  EXPECT_FALSE(spec.quantizes("model.layers.0.mlp.gate"));  // a MoE router
  EXPECT_FALSE(spec.quantizes("lm_head"));
  // Not ignored, the lm_head falls under the "Linear" target like any other linear.
  const quant_spec all = parse_ok(with(llm_compressor_fp8_dynamic, "/ignore", "[]"));
  EXPECT_TRUE(all.quantizes("lm_head"));
}

TEST(quant_spec, LlmCompressorPresets) {
  const std::string base = llm_compressor_fp8_dynamic;
  const std::string group = "/config_groups/group_0";
  // FP8: tensor weights, static tensor activations; FP8_BLOCK: [128,128], dynamic group 128.
  boost::json::object fp8 = with(base, group + "/weights/strategy", R"("tensor")");
  fp8 = with(fp8, group + "/input_activations",
             R"({"num_bits": 8, "type": "float", "symmetric": true, "strategy": "tensor",
                 "dynamic": false, "observer": "minmax"})");
  fp8["kv_cache_scheme"] = boost::json::parse(
      R"({"num_bits": 8, "type": "float", "symmetric": true, "strategy": "tensor",
          "dynamic": false})");
  const quant_spec tensor = parse_ok(fp8);
  EXPECT_EQ(tensor.weight_strategy, scale_strategy::tensor);
  EXPECT_EQ(tensor.activations, activation_scheme::static_per_tensor);
  boost::json::object block = with(base, group + "/weights/strategy", R"("block")");
  block = with(block, group + "/weights/block_structure", "[128, 128]");
  block = with(block, group + "/input_activations/strategy", R"("group")");
  block = with(block, group + "/input_activations/group_size", "128");
  const quant_spec blocks = parse_ok(block);
  EXPECT_EQ(blocks.weight_strategy, scale_strategy::block);
  EXPECT_EQ(blocks.weight_block_rows, 128);
  EXPECT_EQ(blocks.weight_block_cols, 128);
  EXPECT_EQ(blocks.activations, activation_scheme::dynamic_per_group);
  EXPECT_EQ(blocks.activation_group_size, 128);
  // Weight-only FP8 (naive-quantized): no input activations.
  boost::json::object weight_only = with(base, group + "/input_activations", "null");
  weight_only = with(weight_only, group + "/format", R"("naive-quantized")");
  weight_only["format"] = "naive-quantized";
  EXPECT_EQ(parse_ok(weight_only).activations, activation_scheme::none);
}

TEST(quant_spec, CompressedTensorsRefusals) {
  const std::string g = "/config_groups/group_0";
  const std::string w = g + "/weights";
  const std::string a = g + "/input_activations";
  expect_refusals(
      llm_compressor_fp8_dynamic,
      {{"/quantization_status", R"("frozen")", unsupported, {"'quantization_status'", "'frozen'"}},
       {"/config_groups/group_1", fp8_dynamic_group, unsupported, {"'config_groups'", "2"}},
       {g + "/targets",
        R"(["re:.*q_proj"])",
        unsupported,
        {"'config_groups.group_0.targets'", "re:.*q_proj"}},
       {w + "/type", R"("int")", unsupported, {"'config_groups.group_0.weights.type'", "'int'"}},
       {w + "/num_bits", "4", unsupported, {"weights.num_bits'", "4"}},
       {w + "/symmetric", "false", unsupported, {"weights.symmetric'", "false"}},
       {w + "/strategy", R"("group")", unsupported, {"weights.strategy'", "'group'"}},
       {w + "/strategy", R"("block")", error_code::not_found, {"weights.block_structure'"}},
       {w + "/dynamic", "true", unsupported, {"weights.dynamic'", "true"}},
       {w + "/actorder", R"("weight")", unsupported, {"weights.actorder'", "'weight'"}},
       {w + "/zp_dtype", R"("torch.int8")", unsupported, {"weights.zp_dtype'", "'torch.int8'"}},
       {w + "/group_size", "128", invalid, {"weights.group_size'", "128"}},
       {w + "/scale_dtype", R"("torch.float16")", unsupported, {"scale_dtype'", "'torch.float16'"}},
       {a + "/strategy", R"("tensor")", unsupported, {"input_activations.strategy'", "'tensor'"}},
       {a + "/dynamic", R"("local")", unsupported, {"input_activations.dynamic'", "'local'"}},
       {a + "/dynamic", "false", unsupported, {"input_activations.strategy'", "'token'"}},
       {g + "/output_activations",
        R"({"num_bits": 8, "type": "float"})",
        unsupported,
        {"'config_groups.group_0.output_activations'", "num_bits"}},
       {"/format",
        R"("pack-quantized")",
        unsupported,
        {"'format'", "'pack-quantized'", "not yet supported"}},
       {"/format", R"("int-quantized")", unsupported, {"'format'", "'int-quantized'"}},
       {"/format", R"("marlin-24")", unsupported, {"'marlin-24'"}},
       {g + "/format",
        R"("sparse-24-bitmask")",
        unsupported,
        {"'config_groups.group_0.format'", "'sparse-24-bitmask'"}},
       {"/sparsity_config",
        R"({"format": "sparse-24-bitmask"})",
        unsupported,
        {"'sparsity_config'", "sparse-24-bitmask"}},
       {"/transform_config",
        R"({"config_groups": {"u": {}}})",
        unsupported,
        {"'transform_config'", "config_groups"}},
       {"/kv_cache_scheme",
        R"({"num_bits": 8, "type": "int", "strategy": "tensor"})",
        unsupported,
        {"'kv_cache_scheme'", "\"int\""}},
       {"/kv_cache_scheme",
        R"({"num_bits": 8, "type": "float", "strategy": "attn_head"})",
        unsupported,
        {"'kv_cache_scheme'", "attn_head"}},
       {"/ignore", R"(["re:(lm_head"])", invalid, {"'ignore'", "'re:(lm_head'"}},
       {"/ignore", R"("lm_head")", invalid, {"'ignore'", "'lm_head'"}},
       {"/provider_hint", R"("x")", unsupported, {"'provider_hint'", "'x'"}}});
}

TEST(quant_spec, UnknownMethodIsRefused) {
  expect_refusals(
      autoawq,
      {{"/quant_method", R"("bitsandbytes")", unsupported, {"'quant_method'", "'bitsandbytes'"}}});
}

TEST(quant_spec, QuantizesFollowsTheIgnoreRules) {
  const quant_spec awq = parse_ok(with(autoawq, "/modules_to_not_convert", R"(["visual"])"));
  EXPECT_TRUE(awq.quantizes("model.layers.3.self_attn.q_proj"));
  EXPECT_FALSE(awq.quantizes("model.visual.blocks.0.attn.qkv"));  // a substring match
  EXPECT_FALSE(awq.quantizes("model.embed_tokens"));
  EXPECT_FALSE(awq.quantizes("lm_head"));
  EXPECT_TRUE(parse_ok(with(autogptq_desc_act, "/lm_head", "true")).quantizes("lm_head"));
  // fp8 names whole modules: layer 10 is not layer 1.
  const quant_spec fp8 =
      parse_ok(with(qwen3_fp8, "/modules_to_not_convert", R"(["model.layers.1.mlp.down_proj"])"));
  EXPECT_FALSE(fp8.quantizes("model.layers.1.mlp.down_proj"));
  EXPECT_TRUE(fp8.quantizes("model.layers.10.mlp.down_proj"));
  // re.match: anchored at the start only, not at the end.
  const quant_spec ct = parse_ok(
      with(llm_compressor_fp8_dynamic, "/ignore", R"(["re:model.layers.1[.]", "re:mlp"])"));
  EXPECT_FALSE(ct.quantizes("model.layers.1.mlp.down_proj"));
  EXPECT_TRUE(ct.quantizes("model.layers.10.mlp.down_proj"));
  EXPECT_TRUE(ct.quantizes("lm_head"));  // not in this ignore list: the "Linear" target covers it
  EXPECT_TRUE(ct.quantizes("model.layers.1x"));  // "re:model.layers.1[.]" needs the dot
  EXPECT_FALSE(quant_spec{}.quantizes("model.layers.0.self_attn.q_proj"));
}

TEST(quant_spec, MethodNames) {
  EXPECT_EQ(to_string(quant_method::none), "none");
  EXPECT_EQ(to_string(quant_method::awq), "awq");
  EXPECT_EQ(to_string(quant_method::gptq), "gptq");
  EXPECT_EQ(to_string(quant_method::fp8), "fp8");
  EXPECT_EQ(to_string(quant_method::compressed_tensors), "compressed-tensors");
}

void write(const std::filesystem::path& path, std::string_view text) {
  std::ofstream(path) << text;
}

constexpr const char* plain_config = R"({"model_type": "llama"})";

TEST(load_quant_spec, ReadsConfigJsonQuantizationConfig) {
  testing::temp_dir dir("quant_spec");
  write(dir / "config.json",
        std::string(R"({"model_type": "qwen3", "quantization_config": )") + qwen3_fp8 + "}");
  write(dir / "quantize_config.json", autogptq_desc_act);  // config.json wins
  result<std::optional<quant_spec>> spec = load_quant_spec(dir.path());
  ASSERT_TRUE(spec.ok()) << spec.err().message;
  ASSERT_TRUE(spec->has_value());
  EXPECT_EQ((*spec)->method, quant_method::fp8);
  EXPECT_EQ((*spec)->source, (dir / "config.json").string() + ": quantization_config");
}

TEST(load_quant_spec, FallsBackToQuantizeConfigJson) {
  testing::temp_dir dir("quant_spec");
  write(dir / "config.json", R"({"model_type": "llama", "quantization_config": null})");
  // Early AutoGPTQ wrote no quant_method: its keys say GPTQ.
  write(dir / "quantize_config.json",
        R"({"bits": 4, "group_size": 128, "desc_act": false, "sym": true})");
  result<std::optional<quant_spec>> spec = load_quant_spec(dir.path());
  ASSERT_TRUE(spec.ok()) << spec.err().message;
  ASSERT_TRUE(spec->has_value());
  EXPECT_EQ((*spec)->method, quant_method::gptq);
  EXPECT_EQ((*spec)->source, (dir / "quantize_config.json").string());
}

TEST(load_quant_spec, FallsBackToQuantConfigJson) {
  testing::temp_dir dir("quant_spec");
  write(dir / "config.json", plain_config);
  write(dir / "quant_config.json",  // AutoAWQ's legacy file
        R"({"zero_point": true, "q_group_size": 128, "w_bit": 4, "version": "GEMM"})");
  result<std::optional<quant_spec>> spec = load_quant_spec(dir.path());
  ASSERT_TRUE(spec.ok()) << spec.err().message;
  ASSERT_TRUE(spec->has_value());
  EXPECT_EQ((*spec)->method, quant_method::awq);
  EXPECT_EQ((*spec)->group_size, 128);
  EXPECT_EQ((*spec)->source, (dir / "quant_config.json").string());
}

TEST(load_quant_spec, NothingQuantizedOrBrokenFolders) {
  testing::temp_dir dir("quant_spec");
  result<std::optional<quant_spec>> missing = load_quant_spec(dir.path());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.err().code, error_code::not_found);
  write(dir / "config.json", plain_config);
  result<std::optional<quant_spec>> plain = load_quant_spec(dir.path());
  ASSERT_TRUE(plain.ok()) << plain.err().message;
  EXPECT_FALSE(plain->has_value());
  write(dir / "config.json", R"({"model_type": "llama", "quantization_config": "awq"})");
  result<std::optional<quant_spec>> not_object = load_quant_spec(dir.path());
  ASSERT_FALSE(not_object.ok());
  EXPECT_EQ(not_object.err().code, error_code::invalid_argument);
  EXPECT_THAT(not_object.err().message, HasSubstr("'quantization_config'"));
  EXPECT_THAT(not_object.err().message, HasSubstr("'awq'"));
}

}  // namespace
}  // namespace pagedserve::quant
