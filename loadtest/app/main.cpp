// pagedserve-bench: a load test of an OpenAI-compatible server (ours or another) with vLLM
// `bench serve`'s metrics; docs/load-testing.md. Exit status: 0 when every measured request
// succeeded, 3 when the run finished but some failed, 2 for bad arguments or setup errors.

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "loadtest/app/bench_args.h"
#include "loadtest/app/bench_output.h"
#include "loadtest/app/bench_setup.h"
#include "loadtest/app/prompt_text.h"
#include "loadtest/client/sweep.h"
#include "loadtest/core/progress_bar.h"

namespace pagedserve::loadtest {
namespace {

constexpr int exit_ok = 0;
constexpr int exit_setup_error = 2;
constexpr int exit_requests_failed = 3;
constexpr double model_lookup_timeout_s = 30.0;
// Warm-up prompts come from --seed + this; rate sweep point i from --seed + i.
constexpr std::uint64_t warmup_seed_offset = 1000003;

int setup_error(const std::string& message) {
  std::fprintf(stderr, "pagedserve-bench: %s\n", message.c_str());
  return exit_setup_error;
}

// Everything a run needs, built before any request is sent.
struct bench_plan {
  std::vector<bench_request> workload;
  driver_options options;
  slo_spec slo;
  sweep_spec sweep;
};

result<bench_plan> make_plan(const bench_args& args) {
  bench_plan plan;
  auto slo = parse_goodput(args.goodput);
  if (!slo) return slo.err();
  plan.slo = *slo;
  auto options = make_driver_options(args);
  if (!options) return options.err();
  plan.options = std::move(*options);
  auto sweep = make_sweep_spec(args);
  if (!sweep) return sweep.err();
  plan.sweep = std::move(*sweep);
  std::shared_ptr<const tokenizer> prompt_tokenizer;
  if (args.tokenizer) {
    auto loaded = load_prompt_tokenizer(*args.tokenizer);
    if (!loaded) return loaded.err();
    prompt_tokenizer = std::move(*loaded);
  }
  auto workload = make_workload(args, 0, prompt_tokenizer.get());
  if (!workload) return workload.err();
  plan.workload = std::move(*workload);
  if (workload_is_generated(args)) {
    // Prompts of their own for the warm-ups and for each later rate point, so that none
    // finds its prompt in the prefix cache another run filled (see sweep_spec).
    auto warmups = make_workload(args, warmup_seed_offset, prompt_tokenizer.get());
    if (!warmups) return warmups.err();
    plan.options.warmup_requests = std::move(*warmups);
    if (plan.sweep.server_key.empty()) {
      plan.sweep.fresh_workload = [args, prompt_tokenizer](std::size_t point) {
        return make_workload(args, point, prompt_tokenizer.get());
      };
    }
  }
  if (auto kind = check_request_kind(plan.workload, plan.options.body.kind); !kind) {
    return kind.err();
  }
  return plan;
}

// The progress bar of the current run (a sweep starts a new one per point).
class progress_display {
 public:
  explicit progress_display(bool enabled) : enabled_(enabled) {}
  void start(const std::string& label, std::size_t total) {
    if (bar_) bar_->finish();
    if (enabled_ && !label.empty()) std::fprintf(stderr, "%s\n", label.c_str());
    bar_.emplace(total, enabled_);
  }
  void update(std::size_t done, std::size_t failed) {
    if (bar_) bar_->update(done, failed);
  }
  void finish() {
    if (bar_) bar_->finish();
    bar_.reset();
  }

 private:
  bool enabled_;
  std::optional<progress_bar> bar_;
};

int exit_status(const std::vector<sweep_point>& points, const status& written) {
  if (!written) return setup_error(written.err().message);
  for (const sweep_point& point : points) {
    if (point.summary.failed > 0) return exit_requests_failed;
  }
  return exit_ok;
}

int run_bench(const bench_args& args) {
  auto plan = make_plan(args);
  if (!plan) return setup_error(plan.err().message);
  driver_options& options = plan->options;
  std::optional<server_process> own_server;
  if (args.server_config && plan->sweep.server_key.empty()) {
    auto started = server_process::start(make_server_launch(args));
    if (!started) return setup_error(started.err().message);
    own_server.emplace(std::move(*started));
    options.server = own_server->url();
  } else {
    auto server = named_server(args);
    if (!server) return setup_error(server.err().message);
    options.server = *server;
  }
  if (options.body.model.empty() && plan->sweep.server_key.empty()) {
    auto model = fetch_first_model_id(options.server, options.api_key, model_lookup_timeout_s);
    if (!model) {
      return setup_error("cannot learn the model from " + options.server.to_string() +
                         "/v1/models (pass --model): " + model.err().message);
    }
    options.body.model = *model;
  }
  progress_display progress(!args.no_progress && progress_bar::stderr_is_terminal());
  const auto on_progress = [&](std::size_t done, std::size_t failed) {
    progress.update(done, failed);
  };
  auto settings = run_settings(args, options, plan->workload.size());
  if (plan->sweep.values.empty()) {
    progress.start("", plan->workload.size());
    const run_result run = run_load(plan->workload, options, on_progress);
    progress.finish();
    const sweep_point point = make_sweep_point("request_rate", args.request_rate, run, plan->slo);
    return exit_status({point}, emit_run(args, point, std::move(settings)));
  }
  const auto on_point = [&](const std::string& label, std::size_t total) {
    progress.start(label, total);
  };
  auto points = run_sweep(plan->workload, options, plan->sweep, plan->slo, on_point, on_progress);
  progress.finish();
  if (!points) return setup_error(points.err().message);
  return exit_status(*points, emit_sweep(args, *points, std::move(settings)));
}

}  // namespace
}  // namespace pagedserve::loadtest

int main(int argc, char** argv) {
  auto parsed = pagedserve::loadtest::parse_bench_args(argc, argv);
  if (parsed.exit_now) return *parsed.exit_now;
  return pagedserve::loadtest::run_bench(parsed.args);
}
