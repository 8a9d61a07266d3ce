#include "runtime/sched/sequence.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace pagedserve::sched {

std::string_view to_string(sequence_status status) {
  switch (status) {
    case sequence_status::waiting:
      return "waiting";
    case sequence_status::running:
      return "running";
    case sequence_status::preempted:
      return "preempted";
    case sequence_status::finished:
      return "finished";
  }
  return "unknown";
}

sequence::sequence(request_spec spec)
    : tokens_(std::move(spec.prompt_token_ids)),
      num_prompt_tokens_(static_cast<std::uint32_t>(tokens_.size())),
      max_tokens_(spec.max_tokens),
      may_stop_on_token_((spec.eos_token_id && !spec.ignore_eos) || !spec.stop_token_ids.empty()),
      id_(spec.id),
      spec_(std::move(spec)) {
  spec_.prompt_token_ids.clear();
  tokens_.reserve(tokens_.size() + max_tokens_);
}

std::span<const token_id> sequence::prompt_token_ids() const {
  return std::span<const token_id>(tokens_).first(num_prompt_tokens_);
}

std::span<const token_id> sequence::output_token_ids() const {
  return std::span<const token_id>(tokens_).subspan(num_prompt_tokens_);
}

void sequence::start_running(std::uint32_t num_cached_tokens) {
  if (status_ != sequence_status::waiting && status_ != sequence_status::preempted) {
    die("start_running from a state other than waiting/preempted");
  }
  if (num_cached_tokens >= num_tokens()) die("cached prefix covers every token");
  if (num_pending_outputs_ != 0) die("start_running with an output still pending");
  num_computed_tokens_ = num_cached_tokens;
  status_ = sequence_status::running;
  was_ever_scheduled_ = true;
}

void sequence::preempt() {
  if (status_ != sequence_status::running) die("preempt while not running");
  status_ = sequence_status::preempted;
  num_computed_tokens_ = 0;
  ++num_preemptions_;
}

void sequence::finish(finish_reason reason) {
  if (status_ == sequence_status::finished) die("finished twice");
  status_ = sequence_status::finished;
  reason_ = reason;
}

bool sequence::stops_on(token_id token) const {
  const auto& stops = spec_.stop_token_ids;
  if (std::find(stops.begin(), stops.end(), token) != stops.end()) return true;
  return !spec_.ignore_eos && spec_.eos_token_id == token;
}

void sequence::die(const char* what) const {
  std::fprintf(stderr, "pagedserve::sched: sequence %llu (status %s): %s\n",
               static_cast<unsigned long long>(id_.value()), to_string(status_).data(), what);
  std::abort();
}

}  // namespace pagedserve::sched
