#pragma once
// From bench_args to what a run needs: the workload, the SLOs, the driver options and the
// sweep. Every error here is a setup error (exit status 2) with a one-line message.

#include <string>
#include <vector>

#include "loadtest/app/bench_args.h"
#include "loadtest/client/load_driver.h"
#include "loadtest/client/sweep.h"
#include "loadtest/core/summary.h"
#include "loadtest/core/workload.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::loadtest {

// "ttft:500 tpot:50 e2el:2000" (any of the three; words may also be given separately).
[[nodiscard]] result<slo_spec> parse_goodput(const std::vector<std::string>& words);
// "LO:HI" with 0 <= LO < HI.
[[nodiscard]] result<token_id_range> parse_token_id_range(const std::string& text);
// "a,b,c" -> {"a", "b", "c"}; spaces around items are dropped, empty items refused.
[[nodiscard]] result<std::vector<std::string>> parse_list(const std::string& text);

// The workload of --dataset-*; generated ones use --seed + seed_offset (new prompts, same
// distributions).
// `prompt_tokenizer` (--tokenizer, loaded once by the caller) turns id prompts into text.
[[nodiscard]] result<std::vector<bench_request>> make_workload(
    const bench_args& args, std::uint64_t seed_offset = 0,
    const tokenizer* prompt_tokenizer = nullptr);
// Whether make_workload can make new prompts (random and shared-prefix; not a JSONL file).
[[nodiscard]] bool workload_is_generated(const bench_args& args);

// Everything but the server's address and the model, which may need a server first.
[[nodiscard]] result<driver_options> make_driver_options(const bench_args& args);

// The server named by --base-url or --host/--port.
[[nodiscard]] result<server_url> named_server(const bench_args& args);

// The sweep of --sweep-request-rates or --sweep-server-key/--sweep-values; an empty `values`
// when neither is given.
[[nodiscard]] result<sweep_spec> make_sweep_spec(const bench_args& args);

// How to start `pagedserve serve` for --server-config (binary, config, log).
[[nodiscard]] server_launch make_server_launch(const bench_args& args);

}  // namespace pagedserve::loadtest
