#pragma once
// engine_errc <-> caf::error. An engine error is a caf::error of category "pagedserve" whose
// context, when present, is one string saying what exactly went wrong. make_error() lives
// in actors/messages.h (beside the enum, where CAF's ADL finds it).

#include <optional>
#include <string>
#include <string_view>

#include "actors/engine_messages.h"
#include "common/result.h"

namespace pagedserve::actors {

[[nodiscard]] std::string_view to_string(engine_errc code);

// The engine_errc of `err`, or nothing for CAF's own errors (request timeout, dead actor).
[[nodiscard]] std::optional<engine_errc> engine_errc_of(const caf::error& err);

// The context string of an engine error ("" when none), or CAF's rendering otherwise.
[[nodiscard]] std::string error_message(const caf::error& err);

// The engine error for a runtime error value (engine_core::add's rejections).
[[nodiscard]] caf::error to_caf_error(const pagedserve::error& err);

// Renders "pagedserve: <code> (<context>)"; registered by add_engine_message_types.
[[nodiscard]] std::string render_engine_error(std::uint8_t code, caf::atom_value category,
                                              const caf::message& context);

}  // namespace pagedserve::actors
