#pragma once
// The atoms the engine's actors use among themselves (at most 10 characters in CAF 0.17);
// the public ones are in actors/engine_messages.h.

#include <caf/all.hpp>

namespace pagedserve::actors {

using step_atom = caf::atom_constant<caf::atom("step")>;
using close_atom = caf::atom_constant<caf::atom("close")>;        // intake: stop accepting
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;  // shutdown timeout passed
using collect_atom = caf::atom_constant<caf::atom("collect")>;    // executor: to itself

}  // namespace pagedserve::actors
