#include "loadtest/client/load_driver.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdio>
#include <cstdlib>
#include <deque>

#include "loadtest/client/request_session.h"

namespace pagedserve::loadtest {
namespace {

namespace asio = boost::asio;

// The route decides the body's shape: body.kind follows the path.
api_kind kind_of_path(const std::string& path) {
  return path.ends_with("/chat/completions") ? api_kind::chat_completions : api_kind::completions;
}

request_target target_of(const driver_options& options) {
  request_target target;
  target.server = options.server;
  target.path = options.path;
  target.api_key = options.api_key;
  target.kind = kind_of_path(options.path);
  target.request_timeout_s = options.request_timeout_s;
  target.read_timeout_s = options.read_timeout_s;
  target.connect_timeout_s = options.connect_timeout_s;
  resolve_target(target);
  return target;
}

// The measured run: arrivals by one chained timer, a queue of arrived requests waiting for
// a slot, and the records as they end. Everything runs on the io_context's one thread.
class measured_run {
 public:
  measured_run(asio::io_context& io, const std::vector<bench_request>& workload,
               const driver_options& options, const request_target& target,
               const progress_callback& on_progress)
      : io_(io),
        workload_(workload),
        options_(options),
        target_(target),
        on_progress_(on_progress),
        offsets_(arrival_offsets(workload.size(), options.arrivals, options.seed)),
        timer_(io),
        records_(workload.size()) {}

  run_result run() {
    run_start_ = session_clock::now();
    first_send_ = run_start_;
    last_end_ = run_start_;
    arm_arrivals();
    io_.run();
    io_.restart();
    run_result result;
    result.duration_s = std::chrono::duration<double>(last_end_ - first_send_).count();
    result.run_start = run_start_;
    result.records = std::move(records_);
    return result;
  }

 private:
  void arm_arrivals() {
    if (next_arrival_ == offsets_.size()) {
      return;
    }
    timer_.expires_at(run_start_ + std::chrono::duration_cast<session_clock::duration>(
                                       std::chrono::duration<double>(offsets_[next_arrival_])));
    timer_.async_wait([this](const boost::system::error_code&) { on_arrivals(); });
  }

  void on_arrivals() {
    const double now_s = std::chrono::duration<double>(session_clock::now() - run_start_).count();
    while (next_arrival_ < offsets_.size() && offsets_[next_arrival_] <= now_s) {
      waiting_.push_back(next_arrival_++);
    }
    send_waiting();
    arm_arrivals();
  }

  // Starts the next waiting request when a slot is free. A burst is launched one request at
  // a time: the next starts once the previous one's bytes are on the wire, so no request's
  // measured time includes the others' connection set-up.
  void send_waiting() {
    if (launching_ || waiting_.empty() ||
        (options_.max_concurrency != 0 && num_in_flight_ >= options_.max_concurrency)) {
      return;
    }
    const std::size_t index = waiting_.front();
    waiting_.pop_front();
    ++num_in_flight_;
    launching_ = true;
    if (num_started_++ == 0) {
      first_send_ = session_clock::now();
    }
    request_callbacks callbacks;
    callbacks.sent = [this] {
      launching_ = false;
      send_waiting();
    };
    callbacks.done = [this](request_record record) { on_record(std::move(record)); };
    start_request(io_, target_, workload_[index], index,
                  make_request_body(workload_[index], index, options_.body), run_start_,
                  std::move(callbacks));
  }

  void on_record(request_record record) {
    last_end_ = session_clock::now();
    --num_in_flight_;
    ++num_done_;
    num_failed_ += record.ok() ? 0 : 1;
    records_[record.index] = std::move(record);
    if (on_progress_) {
      on_progress_(num_done_, num_failed_);
    }
    send_waiting();
  }

  asio::io_context& io_;
  const std::vector<bench_request>& workload_;
  const driver_options& options_;
  const request_target& target_;
  const progress_callback& on_progress_;
  std::vector<double> offsets_;
  asio::steady_timer timer_;
  std::vector<request_record> records_;
  std::deque<std::size_t> waiting_;
  std::size_t next_arrival_ = 0;
  std::size_t num_in_flight_ = 0;
  bool launching_ = false;  // a started request has not sent its bytes yet
  std::size_t num_started_ = 0;
  std::size_t num_done_ = 0;
  std::size_t num_failed_ = 0;
  session_clock::time_point run_start_;
  session_clock::time_point first_send_;
  session_clock::time_point last_end_;
};

// Warm-ups: options.warmup_requests (else the workload) cycled, one after another; their
// records are dropped.
void run_warmups(asio::io_context& io, const std::vector<bench_request>& workload,
                 const driver_options& options, const request_target& target) {
  const std::vector<bench_request>& source =
      options.warmup_requests.empty() ? workload : options.warmup_requests;
  for (std::size_t i = 0; i < options.num_warmups; ++i) {
    const bench_request& request = source[i % source.size()];
    request_callbacks callbacks{[] {}, [](const request_record&) {}};
    start_request(io, target, request, i, make_request_body(request, i, options.body),
                  session_clock::now(), std::move(callbacks));
    io.run();
    io.restart();
  }
}

}  // namespace

run_result run_load(const std::vector<bench_request>& workload, const driver_options& options,
                    const progress_callback& on_progress) {
  driver_options routed = options;
  routed.body.kind = kind_of_path(options.path);
  if (status checked = check_request_kind(workload, routed.body.kind); !checked.ok()) {
    std::fprintf(stderr, "run_load: %s\n", checked.err().message.c_str());
    std::abort();
  }
  if (workload.empty()) {
    return {};
  }
  const request_target target = target_of(routed);
  asio::io_context io(1);
  run_warmups(io, workload, routed, target);
  measured_run run(io, workload, routed, target, on_progress);
  return run.run();
}

}  // namespace pagedserve::loadtest
