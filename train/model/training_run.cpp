#include "train/model/training_run.h"

#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "train/model/checkpoint_io.h"
#include "train/model/progress_line.h"
#include "train/model/transformer.h"

namespace pagedserve::train {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

struct run_state {
  std::vector<float> params;
  adamw optimizer;
  seeded_random sampler;
  std::int64_t next_step = 0;
};

fs::path state_weights(const run_options& o) { return o.out_dir / "training_state.safetensors"; }
fs::path state_json(const run_options& o) { return o.out_dir / "training_state.json"; }

status save_state(const run_options& o, const parameter_layout& layout, run_state& s) {
  status written = write_safetensors(state_weights(o), layout,
                                     {{"", &s.params},
                                      {"adam.m.", &s.optimizer.first_moment()},
                                      {"adam.v.", &s.optimizer.second_moment()}},
                                     "F32");
  if (!written.ok()) return written;
  const json::object state{{"next_step", s.next_step},
                           {"sampler_state", std::to_string(s.sampler.state())},
                           {"seed", std::to_string(o.seed)}};
  return write_text_file(state_json(o), json::serialize(state) + "\n");
}

status load_state(const run_options& o, const parameter_layout& layout, run_state& s) {
  std::ifstream in(state_json(o));
  if (!in) return make_error(error_code::not_found, "cannot read " + state_json(o).string());
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  const json::value state = json::parse(text.str(), ec);
  if (ec || !state.is_object()) {
    return make_error(error_code::corrupt_data, state_json(o).string() + " is not JSON");
  }
  const json::object& object = state.get_object();
  if (object.at("seed").as_string() != std::to_string(o.seed)) {
    return make_error(error_code::invalid_argument, "the saved run used another --seed");
  }
  for (const auto& [prefix, buffer] :
       {std::pair{"", &s.params}, std::pair{"adam.m.", &s.optimizer.first_moment()},
        std::pair{"adam.v.", &s.optimizer.second_moment()}}) {
    status read = read_safetensors(state_weights(o), layout, prefix, *buffer);
    if (!read.ok()) return read;
  }
  s.next_step = object.at("next_step").to_number<std::int64_t>();
  s.optimizer.set_num_steps(s.next_step);
  s.sampler = seeded_random(std::stoull(std::string(object.at("sampler_state").as_string())));
  return status::success();
}

status copy_tokenizer(const run_options& o) {
  for (const char* name : {"tokenizer.json", "tokenizer_config.json"}) {
    std::error_code ec;
    fs::copy_file(o.tokenizer_dir / name, o.out_dir / name, fs::copy_options::overwrite_existing,
                  ec);
    if (ec)
      return make_error(error_code::io_error,
                        std::string("cannot copy ") + name + ": " + ec.message());
  }
  return status::success();
}

status save_model(const run_options& o, const parameter_layout& layout, const run_state& s) {
  status written =
      write_safetensors(o.out_dir / "model.safetensors", layout, {{"", &s.params}}, o.weight_dtype);
  if (!written.ok()) return written;
  // torch_dtype float32 whatever the storage: the model was trained in fp32 and is meant to
  // run in fp32. bf16 tensors widen exactly; a "bfloat16" torch_dtype would instead make HF
  // (and the engine, which follows it) round RoPE's inv_freq to bf16, frequencies the model
  // never saw (logits ~2e-3 away from the trainer's).
  written =
      write_text_file(o.out_dir / "config.json", hf_config_json(o.shape, o.specials, "float32"));
  if (!written.ok()) return written;
  written =
      write_text_file(o.out_dir / "generation_config.json", hf_generation_config_json(o.specials));
  if (!written.ok()) return written;
  return o.tokenizer_dir.empty() ? status::success() : copy_tokenizer(o);
}

void append_csv(const run_options& o, const step_record& r) {
  const fs::path path = o.out_dir / "loss.csv";
  const bool fresh = !fs::exists(path);
  std::ofstream out(path, std::ios::app);
  if (fresh) out << "step,tokens,train_loss,heldout_loss,lr,grad_norm,seconds\n";
  out << r.step << ',' << r.tokens << ',' << r.train_loss << ',';
  if (r.heldout_loss >= 0.0) out << r.heldout_loss;
  out << ',' << r.lr << ',' << r.grad_norm << ',' << r.seconds << '\n';
}

}  // namespace

double heldout_loss(const parameter_layout& layout, const std::vector<float>& params,
                    const token_stream& heldout, std::int64_t batch, std::int64_t seq_len,
                    std::int64_t windows) {
  const std::int64_t available = num_tiling_windows(heldout, seq_len);
  const std::int64_t total = windows > 0 ? std::min(windows, available) : available;
  transformer model(layout, batch, seq_len);
  double sum = 0.0;
  std::int64_t counted = 0;
  for (std::int64_t first = 0; first + batch <= total; first += batch) {
    const window_batch b = tiling_windows(heldout, first, batch, seq_len);
    model.forward(params, b.inputs.data());
    sum += cross_entropy(model.acts().logits.data(), b.targets.data(), model.rows(),
                         layout.shape().vocab_size) *
           static_cast<double>(batch);
    counted += batch;
  }
  return counted > 0 ? sum / static_cast<double>(counted) : std::nan("");
}

result<run_summary> run_training(const run_options& o, const token_stream& train,
                                 const token_stream& heldout, bool resume) {
  const parameter_layout layout(o.shape);
  run_state s{{}, adamw(layout, o.optimizer), seeded_random(o.seed ^ 0x5eedULL), 0};
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (resume && fs::exists(state_json(o))) {
    status loaded = load_state(o, layout, s);
    if (!loaded.ok()) return loaded.err();
  } else {
    initialise(layout, o.seed, s.params);
    fs::remove(o.out_dir / "loss.csv", ec);
  }
  transformer model(layout, o.batch, o.seq_len);
  std::vector<float> grads;
  const std::int64_t total = o.schedule.total_steps;
  const std::int64_t tokens_per_step = o.batch * o.seq_len;
  progress_line progress(s.next_step, total, tokens_per_step);
  const auto start = std::chrono::steady_clock::now();
  run_summary summary;
  double recent_loss = 0.0;
  std::int64_t recent_steps = 0;
  // --stop-after: this invocation ends early, state saved, and --resume goes on (the
  // schedule is the whole run's either way).
  const std::int64_t stop_at =
      o.stop_after_steps > 0 ? std::min(total, s.next_step + o.stop_after_steps) : total;
  for (; s.next_step < stop_at; ++s.next_step) {
    const std::int64_t step = s.next_step;
    const window_batch b = random_windows(train, o.batch, o.seq_len, s.sampler);
    model.forward(s.params, b.inputs.data());
    const double loss = model.loss_and_logit_gradient(b.targets.data());
    model.backward(s.params, grads);
    const double lr = o.schedule.at(step);
    step_record record{step + 1, (step + 1) * tokens_per_step,          loss, -1.0,
                       lr,       s.optimizer.step(s.params, grads, lr), 0.0};
    recent_loss += loss;
    ++recent_steps;
    const bool last = step + 1 == stop_at;
    if (last || (o.eval_every > 0 && (step + 1) % o.eval_every == 0)) {
      record.heldout_loss =
          heldout_loss(layout, s.params, heldout, o.batch, o.seq_len, o.eval_windows);
      summary.final_train_loss = recent_loss / static_cast<double>(recent_steps);
      recent_loss = 0.0;
      recent_steps = 0;
      if (o.show_progress) {
        char line[160];
        std::snprintf(line, sizeof line, "step %lld: train %.4f, held-out %.4f (perplexity %.1f)",
                      static_cast<long long>(step + 1), summary.final_train_loss,
                      record.heldout_loss, std::exp(record.heldout_loss));
        progress.note(line);
      }
    }
    record.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    append_csv(o, record);
    if (o.show_progress) progress.update(step, loss, lr);
    if (last || (o.save_every > 0 && (step + 1) % o.save_every == 0)) {
      ++s.next_step;  // the state names the next step to run
      status saved = save_state(o, layout, s);
      if (saved.ok()) saved = save_model(o, layout, s);
      --s.next_step;
      if (!saved.ok()) return saved.err();
    }
  }
  if (o.show_progress) progress.finish();
  if (total == 0) {  // --steps 0: the initialisation itself (a baseline to compare with)
    status saved = save_model(o, layout, s);
    if (!saved.ok()) return saved.err();
  }
  summary.steps = s.next_step;
  summary.tokens_seen = s.next_step * tokens_per_step;
  summary.heldout_loss = heldout_loss(layout, s.params, heldout, o.batch, o.seq_len, 0);
  summary.num_parameters = layout.total();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace pagedserve::train
