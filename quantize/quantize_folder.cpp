#include "quantize/quantize_folder.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "quantize/folder_files.h"
#include "quantize/linear_quantizer.h"
#include "quantize/safetensors_writer.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/weight_names.h"
#include "runtime/quant/quantized_checkpoint.h"

namespace pagedserve::quantize {
namespace {

using module_set = std::vector<std::string>;

// Which input a linear module reads, within its parent module: q/k/v read the attention's
// input, gate/up (mixtral: w1/w3) the MLP's; any other module reads its own.
std::string input_of(const std::string& module) {
  const std::size_t dot = module.rfind('.');
  const std::string parent = dot == std::string::npos ? "" : module.substr(0, dot);
  const std::string leaf = dot == std::string::npos ? module : module.substr(dot + 1);
  for (const char* shared : {"q_proj", "k_proj", "v_proj"}) {
    if (leaf == shared) return parent + ":attention_input";
  }
  for (const char* shared : {"gate_proj", "up_proj", "w1", "w3"}) {
    if (leaf == shared) return parent + ":mlp_input";
  }
  return module;
}

// The linear modules of `config` (expected_tensors: dense layers, experts, shared experts;
// routers stay dense) grouped by the input they read. Act-order gives a set one input order:
// GPTQ derives it from the input's Hessian, and loaders that fuse q/k/v or gate/up keep one
// g_idx per fused layer.
std::vector<module_set> input_sharing_sets(const model_config& config, bool lm_head) {
  std::vector<module_set> sets;
  std::map<std::string, std::size_t> set_of_input;
  for (const tensor_spec& spec : expected_tensors(config)) {
    if (spec.role != tensor_role::linear) continue;
    const std::string module = quant::module_of(spec.name);
    if (module == "lm_head" && !lm_head) continue;
    const auto [it, added] = set_of_input.try_emplace(input_of(module), sets.size());
    if (added) sets.emplace_back();
    sets[it->second].push_back(module);
  }
  return sets;
}

struct folder_tensors {
  std::vector<safetensors_tensor> quantized;  // the quantized folder's
  std::vector<safetensors_tensor> twin;       // the dequantized twin's, when asked for
};

linear_weight widen(const host_tensor& t, const std::string& module) {
  linear_weight w{module, std::vector<float>(static_cast<std::size_t>(t.numel())), t.shape[0],
                  t.shape[1], t.dtype};
  convert_to_f32(t, w.values);
  return w;
}

status quantize_set(const checkpoint& weights, const module_set& modules, const quantize_options& o,
                    bool twin, folder_tensors& out) {
  std::vector<linear_weight> set;
  for (const std::string& m : modules) set.push_back(widen(*weights.find(m + ".weight"), m));
  // desc_act with one group per row changes nothing in the format (vLLM treats it as false).
  const bool act_order = o.desc_act && o.group_size != -1;
  const std::vector<std::int32_t> order =
      act_order ? descending_norm_order(set) : std::vector<std::int32_t>{};
  for (const linear_weight& w : set) {
    result<quantized_module> q = quantize_linear(w, o, order);
    if (!q) return q.err();
    for (safetensors_tensor& t : q->tensors) out.quantized.push_back(std::move(t));
    if (twin) {
      out.twin.push_back(float_tensor(w.module + ".weight", weight_dtype::f32,
                                      {w.out_features, w.in_features}, dequantize(q->layer)));
    }
  }
  return status::success();
}

safetensors_tensor borrowed(const host_tensor& t) {
  return {t.name, safetensors_dtype_name(t.dtype), t.shape, t.bytes, nullptr};
}

safetensors_tensor widened(const host_tensor& t) {
  std::vector<float> values(static_cast<std::size_t>(t.numel()));
  convert_to_f32(t, values);
  return owned_tensor(t.name, "F32", t.shape, values);
}

bool same_folder(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec_a;
  std::error_code ec_b;
  const auto canonical_a = std::filesystem::weakly_canonical(a, ec_a);
  const auto canonical_b = std::filesystem::weakly_canonical(b, ec_b);
  return ec_a || ec_b ? a == b : canonical_a == canonical_b;
}

status check_folders(const std::filesystem::path& model_dir, const std::filesystem::path& out_dir,
                     const quantize_options& o) {
  for (const std::filesystem::path& dir : {out_dir, o.dequantized_out}) {
    if (dir.empty()) continue;
    if (same_folder(dir, model_dir) || (dir == o.dequantized_out && same_folder(dir, out_dir))) {
      return make_error(error_code::invalid_argument,
                        dir.string() +
                            ": write to a folder other than the source's and the "
                            "other output's");
    }
    std::error_code ec;
    if (std::filesystem::exists(dir / "model.safetensors.index.json", ec)) {
      return make_error(error_code::invalid_argument,
                        dir.string() +
                            " holds model.safetensors.index.json, which loaders "
                            "would read instead of the model.safetensors written");
    }
  }
  return status::success();
}

status check_source(const boost::json::object& raw, const std::filesystem::path& model_dir) {
  if (raw.contains("quantization_config")) {
    return make_error(error_code::invalid_argument,
                      (model_dir / "config.json").string() +
                          " has a quantization_config: the source must be a dense checkpoint");
  }
  return status::success();
}

// --lm-head on a model whose lm_head is its embedding matrix (tie_word_embeddings): the
// output layer becomes a tensor of its own, a copy of the embeddings, that is quantized,
// while the embeddings stay as they are (llm-compressor unties the same way). Its config
// then says tie_word_embeddings false, in both folders written.
void untie_lm_head(model_config& config, boost::json::object& raw, checkpoint& weights) {
  const host_tensor* embeddings = weights.find("model.embed_tokens.weight");
  if (embeddings == nullptr) return;  // load_safetensors_checkpoint has said what is missing
  host_tensor lm_head = *embeddings;
  lm_head.name = "lm_head.weight";
  weights.add(lm_head, nullptr);  // the same bytes, kept alive by the checkpoint already
  config.tie_word_embeddings = false;
  raw["tie_word_embeddings"] = false;
}

status write_folder(const std::filesystem::path& dir, std::vector<safetensors_tensor>& tensors,
                    const boost::json::object& config, const std::filesystem::path& source) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return make_error(error_code::io_error, "cannot create " + dir.string() + ": " + ec.message());
  std::sort(
      tensors.begin(), tensors.end(),
      [](const safetensors_tensor& a, const safetensors_tensor& b) { return a.name < b.name; });
  if (status s = write_safetensors(dir / "model.safetensors", tensors); !s) return s;
  if (status s = write_config_object(dir, config); !s) return s;
  return copy_side_files(source, dir);
}

}  // namespace

result<quantize_summary> quantize_folder(const std::filesystem::path& model_dir,
                                         const std::filesystem::path& out_dir,
                                         const quantize_options& o) {
  if (status s = validate(o); !s) return s.err();
  if (status s = check_folders(model_dir, out_dir, o); !s) return s.err();
  result<model_config> config = load_model_config(model_dir);
  if (!config) return config.err();
  result<boost::json::object> raw = read_config_object(model_dir);
  if (!raw) return raw.err();
  if (status s = check_source(*raw, model_dir); !s) return s.err();
  result<checkpoint> weights = o.dummy_weights ? make_dummy_checkpoint(*config, o.seed)
                                               : load_safetensors_checkpoint(model_dir, *config);
  if (!weights) return weights.err();
  if (o.lm_head && config->tie_word_embeddings) untie_lm_head(*config, *raw, *weights);

  const bool twin = !o.dequantized_out.empty();
  const std::vector<module_set> sets = input_sharing_sets(*config, o.lm_head);
  std::set<std::string> quantized_names;
  for (const module_set& set : sets) {
    for (const std::string& m : set) quantized_names.insert(m + ".weight");
  }
  quantize_summary summary{config->num_layers, static_cast<std::int64_t>(quantized_names.size())};
  folder_tensors out;
  for (const auto& [name, tensor] : weights->tensors()) {
    summary.bytes_before += static_cast<std::int64_t>(tensor.bytes.size());
    if (quantized_names.contains(name)) continue;
    out.quantized.push_back(borrowed(tensor));
    ++summary.num_copied;
    if (twin) out.twin.push_back(widened(tensor));
  }
  for (const module_set& set : sets) {
    if (status s = quantize_set(*weights, set, o, twin, out); !s) return s.err();
  }

  boost::json::object quantized_config = *raw;
  quantized_config["quantization_config"] = quantization_config(o);
  if (status s = write_folder(out_dir, out.quantized, quantized_config, model_dir); !s) {
    return s.err();
  }
  summary.bytes_after = total_bytes(out.quantized);
  if (twin) {
    if (status s = write_folder(o.dequantized_out, out.twin, *raw, model_dir); !s) return s.err();
    summary.bytes_dequantized = total_bytes(out.twin);
  }
  return summary;
}

}  // namespace pagedserve::quantize
