#pragma once
// describe: a quant_spec in one phrase for the start-up log and the metrics label, e.g.
// "awq (4-bit, group 128, zero points)", "fp8 (block 128x128 weights, dynamic activations)".

#include <string>

#include "runtime/quant/quant_spec.h"

namespace pagedserve::quant {

[[nodiscard]] std::string describe(const quant_spec& spec);

}  // namespace pagedserve::quant
