#include "cli/batch_runner.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "net/openai/batch_file.h"
#include "net/openai/embedding_builder.h"
#include "net/openai/response_builder.h"

namespace pagedserve::cli {
namespace {

using clock_type = std::chrono::steady_clock;

// One running line: its request, the builder its events go through, its submissions.
struct line_call {
  net::batch_request request;
  std::unique_ptr<net::event_builder> builder;
  std::vector<submission> submissions;
};

std::unique_ptr<net::event_builder> builder_for(const net::api_request& request,
                                                const tokenizer* tok) {
  if (request.kind == net::api_kind::embedding) {
    return std::make_unique<net::embedding_builder>(request);
  }
  return std::make_unique<net::response_builder>(request, tok, net::make_response_id(request.kind),
                                                 static_cast<std::int64_t>(std::time(nullptr)));
}

// The finished line's output: the body as the server would answer it.
std::string output_of(line_call& call) {
  const std::optional<std::string>& failed = call.builder->error_message();
  if (failed) {
    return net::batch_response_line(call.request.custom_id, 500,
                                    net::to_body(net::internal_error(*failed)));
  }
  std::vector<std::string> body = call.builder->finish();
  std::string text = body.empty() ? std::string("{}") : std::move(body.front());
  if (call.request.dialect) {
    text = call.request.dialect->body(boost::json::parse(text).as_object());
  }
  return net::batch_response_line(call.request.custom_id, 200, text);
}

}  // namespace

struct batch_runner::state {
  engine_client& eng;
  const net::model_context& model;
  std::size_t max_in_flight;
  net::response_store store;

  std::mutex mutex;
  std::condition_variable changed;
  std::unordered_map<std::size_t, std::shared_ptr<line_call>> running;
  std::map<std::size_t, std::string> ready;  // output lines not written yet
  batch_totals totals;

  state(engine_client& e, const net::model_context& m, std::size_t n)
      : eng(e), model(m), max_in_flight(n) {}

  void finish_line(std::size_t index, std::string output, bool failed) {
    running.erase(index);
    ready.emplace(index, std::move(output));
    if (failed) ++totals.lines_failed;
    changed.notify_all();
  }

  void on_event(std::size_t index, std::size_t prompt, const engine_event& event) {
    const std::scoped_lock lock(mutex);
    const auto it = running.find(index);
    if (it == running.end()) return;  // already answered (a refused sibling prompt)
    line_call& call = *it->second;
    std::vector<std::string> ignored;
    if (const auto* chunk = std::get_if<token_chunk>(&event)) {
      totals.output_tokens += chunk->token_ids.size();
      call.builder->on_chunk(prompt, *chunk, ignored);
    } else if (const auto* final = std::get_if<request_final>(&event)) {
      call.builder->on_final(prompt, *final, ignored);
    }
    if (call.builder->done()) {
      const bool failed = call.builder->error_message().has_value();
      finish_line(index, output_of(call), failed);
    }
  }

  void on_accepted(std::size_t index, const result<request_id>& id) {
    if (id.ok()) return;
    std::vector<submission> to_cancel;
    {
      const std::scoped_lock lock(mutex);
      const auto it = running.find(index);
      if (it == running.end()) return;
      to_cancel = it->second->submissions;
      const net::api_error err = net::to_api_error(id.err());
      finish_line(
          index,
          net::batch_response_line(it->second->request.custom_id, err.status, net::to_body(err)),
          true);
    }
    for (const submission& s : to_cancel) s.cancel();
  }

  // Parses and submits line `index` (or answers it at once). Submits outside the lock: an
  // engine may call `accepted` before submit_async returns.
  void start_line(std::size_t index, std::string_view text) {
    net::batch_line parsed = net::parse_batch_line(text, model, store);
    auto call = std::make_shared<line_call>();
    {
      const std::scoped_lock lock(mutex);
      if (auto* refusal = std::get_if<net::batch_refusal>(&parsed)) {
        finish_line(index, net::batch_refusal_line(*refusal), true);
        return;
      }
      call->request = std::get<net::batch_request>(std::move(parsed));
      call->builder = builder_for(call->request.request, model.tok);
      running.emplace(index, call);
    }
    std::vector<submission> submitted;
    const std::vector<net::api_prompt>& prompts = call->request.request.prompts;
    for (std::size_t p = 0; p < prompts.size(); ++p) {
      submitted.push_back(eng.submit_async(
          prompts[p].request, [this, index, p](const engine_event& e) { on_event(index, p, e); },
          [this, index](result<request_id> id) { on_accepted(index, id); }));
    }
    bool answered = false;
    {
      const std::scoped_lock lock(mutex);
      answered = running.count(index) == 0;
      if (!answered) call->submissions = submitted;
    }
    if (answered) {  // refused while submitting: its other prompts are not wanted
      for (const submission& sub : submitted) sub.cancel();
    }
  }
};

batch_runner::batch_runner(engine_client& eng, const net::model_context& model,
                           std::size_t max_in_flight)
    : state_(std::make_unique<state>(eng, model, std::max<std::size_t>(1, max_in_flight))) {}

batch_runner::~batch_runner() = default;

batch_totals batch_runner::run(std::istream& in, std::ostream& out,
                               const std::function<void(const batch_totals&)>& progress) {
  state& s = *state_;
  const auto start = clock_type::now();
  std::size_t next_read = 0;
  std::size_t next_write = 0;
  bool more = true;
  std::string text;
  while (true) {
    while (more) {  // refill the window
      {
        const std::scoped_lock lock(s.mutex);
        if (next_read - next_write >= s.max_in_flight) break;
      }
      if (!std::getline(in, text)) {
        more = false;
        break;
      }
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank line
      s.start_line(next_read++, text);
    }
    std::vector<std::string> writable;
    batch_totals now;
    {
      std::unique_lock lock(s.mutex);
      s.changed.wait_for(lock, std::chrono::milliseconds(500), [&] {
        return s.ready.count(next_write) > 0 || (!more && next_write == next_read);
      });
      for (auto it = s.ready.find(next_write); it != s.ready.end() && it->first == next_write;
           it = s.ready.find(next_write)) {
        writable.push_back(std::move(it->second));
        s.ready.erase(it);
        ++next_write;
      }
      s.totals.lines_done = next_write;
      s.totals.wall_s = std::chrono::duration<double>(clock_type::now() - start).count();
      now = s.totals;
    }
    for (const std::string& line : writable) out << line << '\n';
    progress(now);
    if (!more && next_write == next_read) return now;
  }
}

}  // namespace pagedserve::cli
