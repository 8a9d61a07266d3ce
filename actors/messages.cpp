// add_engine_message_types: the public message types by name (the same on every node), and
// the error category. Element types nested inside them need no registration; every type
// that can be a top-level message element does (a missing one fails only at run time).

#include "actors/engine_errors.h"
#include "actors/engine_gate.h"
#include "actors/spawn_engine.h"

namespace pagedserve::actors {

void add_engine_message_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<generation_request>("pagedserve::generation_request");
  cfg.add_message_type<sampling_params>("pagedserve::sampling_params");
  cfg.add_message_type<token_chunk>("pagedserve::token_chunk");
  cfg.add_message_type<request_final>("pagedserve::request_final");
  cfg.add_message_type<request_lifecycle>("pagedserve::request_lifecycle");
  cfg.add_message_type<request_usage>("pagedserve::request_usage");
  cfg.add_message_type<engine_stats>("pagedserve::engine_stats");
  cfg.add_message_type<shutdown_report>("pagedserve::shutdown_report");
  cfg.add_message_type<request_id>("pagedserve::request_id");
  cfg.add_message_type<published_model>("pagedserve::published_model");
  // Typed handles are not among CAF's built-in types: the gate's reply carries this one.
  cfg.add_message_type<engine_actor>("pagedserve::engine_actor");
  cfg.add_message_type<std::vector<token_id>>("std::vector<pagedserve::token_id>");
  cfg.add_error_category(engine_error_category, render_engine_error);
}

}  // namespace pagedserve::actors
