#include "actors/engine_errors.h"

namespace pagedserve::actors {

caf::error make_error(engine_errc code) {
  return caf::error(static_cast<std::uint8_t>(code), engine_error_category);
}

caf::error make_error(engine_errc code, std::string context) {
  return caf::error(static_cast<std::uint8_t>(code), engine_error_category,
                    caf::make_message(std::move(context)));
}

std::string_view to_string(engine_errc code) {
  switch (code) {
    case engine_errc::invalid_request:
      return "invalid_request";
    case engine_errc::capacity_exceeded:
      return "capacity_exceeded";
    case engine_errc::queue_full:
      return "queue_full";
    case engine_errc::shutting_down:
      return "shutting_down";
    case engine_errc::step_failed:
      return "step_failed";
    case engine_errc::internal:
      return "internal";
  }
  return "unknown";
}

std::optional<engine_errc> engine_errc_of(const caf::error& err) {
  if (!err || err.category() != engine_error_category) return std::nullopt;
  return static_cast<engine_errc>(err.code());
}

namespace {

std::string context_string(const caf::message& context) {
  if (context.size() == 1 && context.match_element<std::string>(0)) {
    return context.get_as<std::string>(0);
  }
  return {};
}

}  // namespace

std::string error_message(const caf::error& err) {
  if (!err) return {};
  if (engine_errc_of(err)) return context_string(err.context());
  return caf::to_string(err);
}

caf::error to_caf_error(const pagedserve::error& err) {
  switch (err.code) {
    case error_code::capacity_exceeded:
      return make_error(engine_errc::capacity_exceeded, err.message);
    case error_code::invalid_argument:
    case error_code::unsupported:
      return make_error(engine_errc::invalid_request, err.message);
    case error_code::overloaded:
      return make_error(engine_errc::queue_full, err.message);
    case error_code::unavailable:
      return make_error(engine_errc::shutting_down, err.message);
    case error_code::not_found:
    case error_code::corrupt_data:
    case error_code::io_error:
    case error_code::internal:
      break;
  }
  return make_error(engine_errc::internal, err.message);
}

std::string render_engine_error(std::uint8_t code, caf::atom_value /*category*/,
                                const caf::message& context) {
  std::string out = "pagedserve: ";
  out += to_string(static_cast<engine_errc>(code));
  if (std::string detail = context_string(context); !detail.empty()) {
    out += " (" + detail + ")";
  }
  return out;
}

}  // namespace pagedserve::actors
