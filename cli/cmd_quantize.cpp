// pagedserve quantize: writes a dense HF checkpoint folder as a quantized one in a real
// format (AWQ GEMM, GPTQ v1/v2, HF fp8 block, compressed-tensors FP8) by round-to-nearest,
// and optionally its fp32 dequantized twin. quantize/quantize_folder.h has the details;
// docs/quantize.md the usage. Exit status: 0; 2 for bad input (a flag, a flag the method
// does not take, a missing or already quantized source, a shape the format cannot hold);
// 1 when the source is corrupt or the output cannot be written.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "quantize/quantize_folder.h"
#include "runtime/engine/built_in_model.h"

namespace pagedserve::cli {
namespace {

using quantize::quantize_method;
using quantize::quantize_options;

struct quantize_flags {
  std::string model_dir;
  std::string out_dir;
  std::string method;
  std::string weight_strategy = "channel";
  std::string dequantized_out;
  quantize_options options;
  bool symmetric_given = false;  // --sym: the default, accepted for explicitness
  bool asymmetric = false;
};

void add_options(CLI::App& app, quantize_flags& f) {
  app.add_option("--model", f.model_dir, "dense HF checkpoint folder (or pagedserve-demo)")
      ->required();
  app.add_option("--out", f.out_dir, "folder to write the quantized checkpoint to")->required();
  app.add_option("--method", f.method, "checkpoint format to write")
      ->required()
      ->check(
          CLI::IsMember({"awq", "gptq", "gptq_v2", "fp8-block", "fp8-dynamic", "fp8-weight-only"}));
  app.add_option("--bits", f.options.bits, "awq: 4; gptq: 4 or 8")->default_val(4);
  app.add_option("--group-size", f.options.group_size, "awq, gptq: inputs per scale, -1: a row")
      ->default_val(128);
  auto* sym = app.add_flag("--sym", f.symmetric_given,
                           "gptq: symmetric (the default; zero point 2^(bits-1))");
  app.add_flag("--asym", f.asymmetric, "gptq: asymmetric, a zero point per group")->excludes(sym);
  app.add_flag("--desc-act", f.options.desc_act,
               "gptq: act-order with g_idx, inputs ordered by decreasing weight-column norm "
               "(a stand-in for activation order: no calibration data)");
  app.add_flag("--lm-head", f.options.lm_head,
               "gptq, fp8-dynamic, fp8-weight-only: quantize the lm_head too (a tied one is "
               "untied: a copy of the embeddings, quantized)");
  app.add_option("--weight-strategy", f.weight_strategy,
                 "fp8-dynamic, fp8-weight-only: one weight scale per channel or per tensor")
      ->check(CLI::IsMember({"tensor", "channel"}))
      ->default_val("channel");
  app.add_flag("--dummy-weights", f.options.dummy_weights,
               "quantize seeded random weights of --model's config.json (benchmarks of a shape "
               "whose weights are not at hand; the folder needs only config.json)");
  app.add_option("--seed", f.options.seed, "seed of --dummy-weights");
  app.add_option("--dequantized-out", f.dequantized_out,
                 "also write the fp32 folder of the exact dequantization (the reference a "
                 "loader of --out must reproduce)");
}

// The first flag given that `method` does not take, if any.
std::optional<std::string> flag_not_taken(const CLI::App& app, quantize_method method) {
  std::vector<std::string> not_taken;
  if (!quantize::is_int_method(method)) {
    not_taken = {"--bits", "--group-size", "--sym", "--asym", "--desc-act"};
    if (!quantize::is_compressed_tensors(method)) not_taken.push_back("--lm-head");
  } else if (method == quantize_method::awq) {
    not_taken = {"--sym", "--asym", "--desc-act", "--lm-head"};
  }
  if (!quantize::is_compressed_tensors(method)) not_taken.push_back("--weight-strategy");
  for (const std::string& flag : not_taken) {
    if (app.count(flag) > 0) return flag;
  }
  return std::nullopt;
}

std::string megabytes(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

// "gptq, 4 bits, group 128, sym, desc_act", "fp8-dynamic, channel scales".
std::string describe(const quantize_flags& f) {
  const quantize_options& o = f.options;
  if (quantize::is_compressed_tensors(o.method)) {
    return f.method + ", " + f.weight_strategy + " scales";
  }
  if (!quantize::is_int_method(o.method)) return f.method + ", 128x128 blocks";
  std::string text = f.method + ", " + std::to_string(o.bits) + " bits, group " +
                     (o.group_size == -1 ? std::string("row") : std::to_string(o.group_size));
  if (o.method != quantize_method::awq) text += o.symmetric ? ", sym" : ", asym";
  return o.desc_act ? text + ", desc_act" : text;
}

void print_summary(const quantize_flags& f, const quantize::quantize_summary& s) {
  std::printf(
      "pagedserve quantize: wrote %s (%s): %lld linear weights of %lld layers quantized, "
      "%lld tensors copied; tensor bytes %s -> %s (%.2fx)\n",
      f.out_dir.c_str(), describe(f).c_str(), static_cast<long long>(s.num_quantized),
      static_cast<long long>(s.num_layers), static_cast<long long>(s.num_copied),
      megabytes(s.bytes_before).c_str(), megabytes(s.bytes_after).c_str(),
      static_cast<double>(s.bytes_after) / static_cast<double>(s.bytes_before));
  if (!f.dequantized_out.empty()) {
    std::printf("pagedserve quantize: wrote %s (fp32 dequantized twin, %s)\n",
                f.dequantized_out.c_str(), megabytes(s.bytes_dequantized).c_str());
  }
}

int fail(const std::string& message, int exit_status) {
  std::fprintf(stderr, "pagedserve quantize: %s\n", message.c_str());
  return exit_status;
}

int exit_status_of(error_code code) {
  const bool bad_input = code == error_code::invalid_argument || code == error_code::not_found ||
                         code == error_code::unsupported;
  return bad_input ? 2 : 1;
}

int run(quantize_flags& f, const CLI::App& app) {
  f.options.method = *quantize::parse_quantize_method(f.method);  // checked by IsMember
  if (auto flag = flag_not_taken(app, f.options.method)) {
    return fail(*flag + " does not apply to --method " + f.method, 2);
  }
  f.options.symmetric = !f.asymmetric;
  f.options.weight_strategy =
      f.weight_strategy == "tensor" ? quant::fp8_strategy::tensor : quant::fp8_strategy::channel;
  f.options.dequantized_out = f.dequantized_out;
  engine_config names;
  names.model_dir = f.model_dir;
  auto source = resolved_model_dir(names);
  if (!source) return fail(source.err().message, 2);
  if (source->empty()) return fail(f.model_dir + " has no checkpoint folder to quantize", 2);
  auto summary = quantize::quantize_folder(*source, f.out_dir, f.options);
  if (!summary) return fail(summary.err().message, exit_status_of(summary.err().code));
  print_summary(f, *summary);
  return 0;
}

int run_quantize(int argc, char** argv) {
  CLI::App app(
      "Write a dense HF checkpoint as a quantized one (AWQ, GPTQ, FP8) by round-to-nearest",
      "pagedserve quantize");
  quantize_flags flags;
  add_options(app, flags);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? 0 : 2;  // --help is 0; every bad command line is 2
  }
  return run(flags, app);
}

const command_registration registration{
    {"quantize", "write a quantized checkpoint (awq, gptq, fp8) of a dense HF folder",
     &run_quantize}};

}  // namespace
}  // namespace pagedserve::cli
