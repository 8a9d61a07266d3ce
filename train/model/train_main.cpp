// pagedserve-train: trains the demo Llama on text files with a tokenizer folder and writes a
// HF folder the engine serves (scripts/train-demo-model.sh runs it with the shipped model's
// settings). Exit status 2 for bad input.

#include <CLI/CLI.hpp>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>

#include "runtime/eval/unigram_baseline.h"
#include "train/model/checkpoint_io.h"
#include "train/model/parameters.h"
#include "train/model/training_run.h"

namespace {

using namespace pagedserve;
using namespace pagedserve::train;
namespace json = boost::json;

struct inputs {
  std::filesystem::path tokenizer_dir;
  std::vector<std::filesystem::path> text_files;
  std::vector<std::filesystem::path> chat_files;
  std::filesystem::path heldout_file;
  bool resume = false;
};

void add_flags(CLI::App& app, inputs& in, run_options& o, std::string& dtype) {
  app.add_option("--tokenizer", in.tokenizer_dir, "folder with tokenizer.json")->required();
  app.add_option("--train", in.text_files, "text files, one document per line")->required();
  app.add_option("--chat", in.chat_files, "JSONL files of {\"messages\": [...]}");
  app.add_option("--heldout", in.heldout_file, "held-out text, one document per line")->required();
  app.add_option("--out", o.out_dir, "folder for the model, loss.csv and the state")->required();
  app.add_flag("--resume", in.resume, "continue from --out's training_state.*");
  app.add_option("--seed", o.seed, "initialisation and data order");
  app.add_option("--steps", o.schedule.total_steps, "optimizer steps");
  app.add_option("--stop-after", o.stop_after_steps,
                 "end after this many steps of this invocation (state saved; --resume goes on)");
  app.add_option("--batch", o.batch, "windows per step");
  app.add_option("--seq-len", o.seq_len, "tokens per window");
  app.add_option("--lr", o.schedule.peak, "peak learning rate");
  app.add_option("--min-lr", o.schedule.floor, "learning rate at the end of the cosine");
  app.add_option("--warmup", o.schedule.warmup_steps, "linear warm-up steps");
  app.add_option("--weight-decay", o.optimizer.weight_decay, "AdamW decay of matrices");
  app.add_option("--eval-every", o.eval_every, "steps between held-out evaluations");
  app.add_option("--eval-windows", o.eval_windows, "held-out windows per evaluation (0: all)");
  app.add_option("--save-every", o.save_every, "steps between checkpoints");
  app.add_option("--dtype", dtype, "model.safetensors weights")
      ->check(CLI::IsMember({"bf16", "f32"}));
  app.add_option("--hidden-size", o.shape.hidden_size);
  app.add_option("--intermediate-size", o.shape.intermediate_size);
  app.add_option("--layers", o.shape.num_layers);
  app.add_option("--heads", o.shape.num_heads);
  app.add_option("--kv-heads", o.shape.num_kv_heads);
  app.add_option("--head-dim", o.shape.head_dim);
  app.add_option("--max-position-embeddings", o.shape.max_position_embeddings);
  app.add_flag("!--no-progress", o.show_progress, "no progress bar");
}

int fail(const std::string& message) {
  std::fprintf(stderr, "pagedserve-train: %s\n", message.c_str());
  return 2;
}

result<token_stream> read_stream(const tokenizer& tok,
                                 const std::vector<std::filesystem::path>& text,
                                 const std::vector<std::filesystem::path>& chat) {
  token_stream stream;
  for (const auto& file : text) {
    status s = append_text_file(tok, file, stream);
    if (!s.ok()) return s.err();
  }
  for (const auto& file : chat) {
    status s = append_chat_file(tok, file, stream);
    if (!s.ok()) return s.err();
  }
  return stream;
}

result<special_ids> specials_of(const tokenizer& tok) {
  const auto bos = tok.token_to_id("<|begin_of_text|>");
  const auto eos = tok.token_to_id("<|end_of_text|>");
  const auto eot = tok.token_to_id("<|eot_id|>");
  if (!bos || !eos || !eot) {
    return make_error(error_code::invalid_argument,
                      "the tokenizer needs <|begin_of_text|>, <|end_of_text|> and <|eot_id|>");
  }
  return special_ids{*bos, *eos, *eot};
}

std::string summary_json(const run_options& o, const run_summary& s, double unigram_loss,
                         const token_stream& train, const token_stream& heldout) {
  const json::object summary{
      {"parameters", s.num_parameters},
      {"shape", json::parse(hf_config_json(o.shape, o.specials, "float32"))},
      {"batch", o.batch},
      {"seq_len", o.seq_len},
      {"steps", s.steps},
      {"tokens_seen", s.tokens_seen},
      {"train_tokens", train.ids.size()},
      {"heldout_tokens", heldout.ids.size()},
      {"epochs", static_cast<double>(s.tokens_seen) / static_cast<double>(train.ids.size())},
      {"final_train_loss", s.final_train_loss},
      {"heldout_loss", s.heldout_loss},
      {"heldout_perplexity", std::exp(s.heldout_loss)},
      {"unigram_heldout_perplexity", std::exp(unigram_loss)},
      {"seconds", s.seconds},
      {"seed", o.seed}};
  return json::serialize(summary) + "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Train the demo Llama (its own forward and backward, CPU) and write a HF folder"};
  inputs in;
  run_options o;
  std::string dtype = "bf16";
  add_flags(app, in, o, dtype);
  CLI11_PARSE(app, argc, argv);
  o.weight_dtype = dtype == "bf16" ? "BF16" : "F32";
  o.tokenizer_dir = in.tokenizer_dir;
  auto tok = tokenizer::load(in.tokenizer_dir);
  if (!tok.ok()) return fail(tok.err().message);
  const result<special_ids> ids = specials_of(**tok);
  if (!ids.ok()) return fail(ids.err().message);
  o.specials = *ids;
  o.shape.vocab_size = static_cast<std::int64_t>((*tok)->vocab_size());
  if (const std::string e = shape_error(o.shape); !e.empty()) return fail(e);
  if (o.seq_len > o.shape.max_position_embeddings) return fail("--seq-len exceeds the context");
  const result<token_stream> train = read_stream(**tok, in.text_files, in.chat_files);
  if (!train.ok()) return fail(train.err().message);
  const result<token_stream> heldout = read_stream(**tok, {in.heldout_file}, {});
  if (!heldout.ok()) return fail(heldout.err().message);
  if (static_cast<std::int64_t>(train->ids.size()) <= o.seq_len + 1 ||
      static_cast<std::int64_t>(heldout->ids.size()) <= o.seq_len * o.batch + 1) {
    return fail("too little text for one batch of --seq-len windows");
  }
  // The same add-one unigram model `pagedserve eval --unigram-from` reports, counted on the
  // training stream and scored over the held-out stream.
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(o.shape.vocab_size), 0);
  for (std::int32_t id : train->ids) ++counts[static_cast<std::size_t>(id)];
  const std::vector<std::vector<token_id>> heldout_ids{{heldout->ids.begin(), heldout->ids.end()}};
  const double unigram = eval::unigram_baseline(std::move(counts)).mean_nll(heldout_ids);
  std::fprintf(stderr,
               "pagedserve-train: %lld parameters; %zu training tokens (%lld documents), %zu "
               "held-out; unigram held-out perplexity %.1f\n",
               static_cast<long long>(parameter_layout(o.shape).total()), train->ids.size(),
               static_cast<long long>(train->num_documents), heldout->ids.size(),
               std::exp(unigram));
  const result<run_summary> summary = run_training(o, *train, *heldout, in.resume);
  if (!summary.ok()) return fail(summary.err().message);
  const std::string text = summary_json(o, *summary, unigram, *train, *heldout);
  status written = write_text_file(o.out_dir / "training_summary.json", text);
  if (!written.ok()) return fail(written.err().message);
  std::printf("%s", text.c_str());
  return 0;
}
