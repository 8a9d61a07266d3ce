// The engine actor across processes: bin/remote_engine serves the demo model on 127.0.0.1;
// this process connects with CAF's middleman, streams greedy requests into its own sink
// actors, and checks the tokens equal the same requests run through a local facade engine;
// then it shuts the server's engine down and the server process exits.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "actors/engine.h"
#include "actors/engine_actor.h"
#include "actors/spawn_engine.h"
#include "tests/actors/engine_test_support.h"
#include "tests/support/test_paths.h"

extern char** environ;

namespace pagedserve {
namespace {

using namespace std::chrono_literals;
using testing::event_recorder;
using testing::greedy_request;

// A child process with its stdout on a pipe. The destructor kills it if it still runs, so
// a failing test never leaves a server behind.
class child_process {
 public:
  explicit child_process(std::vector<std::string> args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_fd_ = fds[0];
  }
  ~child_process() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  [[nodiscard]] bool started() const { return pid_ > 0; }

  // The next line of stdout, or nothing at EOF or after the timeout.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (const auto eol = buffer_.find('\n'); eol != std::string::npos) {
        std::string line = buffer_.substr(0, eol);
        buffer_.erase(0, eol + 1);
        return line;
      }
      if (!read_some(deadline)) return std::nullopt;
    }
  }

  // Waits for the exit (stdout reaches EOF when the process ends); its exit status, or
  // nothing after the timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (read_some(deadline)) {
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    int raw = 0;
    if (waitpid(pid_, &raw, 0) != pid_) return std::nullopt;
    pid_ = -1;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  }

 private:
  // Appends what stdout has; false at EOF or at the deadline.
  bool read_some(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[4096];
    const ssize_t n = read(out_fd_, chunk, sizeof chunk);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string buffer_;
};

// A sink in this process that hands the engine's events to a recorder's callback; quits
// after the final (n = 1).
caf::behavior recording_sink(caf::event_based_actor* self, engine_callback callback) {
  return {
      [callback](const token_chunk& chunk) { callback(chunk); },
      [callback](const request_lifecycle& lifecycle) { callback(lifecycle); },
      [self, callback](const request_final& final) {
        callback(final);
        self->quit();
      },
  };
}

struct client_node {
  caf::actor_system_config cfg;
  std::optional<caf::actor_system> system;

  client_node() {
    cfg.load<caf::io::middleman>();
    actors::add_engine_message_types(cfg);
    cfg.set("scheduler.max-threads", std::size_t{2});
    cfg.set("middleman.heartbeat-interval", caf::timespan{1s});
    cfg.set("middleman.connection-timeout", caf::timespan{10s});
    system.emplace(cfg);
  }
};

// Kills the sinks it holds when the test ends, finished or not, so a failed test does not
// leave actors that keep the actor system's destructor waiting.
struct sink_guard {
  std::vector<caf::actor> sinks;
  ~sink_guard() {
    for (const caf::actor& s : sinks) caf::anon_send_exit(s, caf::exit_reason::kill);
  }
};

std::vector<generation_request> test_requests() {
  std::vector<generation_request> requests = {greedy_request({1, 17, 33, 49}, 10),
                                              greedy_request({1, 250, 2, 499, 7}, 7),
                                              greedy_request({1, 3}, 12)};
  requests[1].sampling.logprobs = 3;    // logprobs cross the network too
  requests[2].report_lifecycle = true;  // and lifecycle events
  return requests;
}

// Every token's logprob and top alternatives of a completion, in order.
std::vector<chunk_logprob> logprobs_of(const event_recorder& rec) {
  std::vector<chunk_logprob> out;
  for (const token_chunk& c : rec.chunks()) {
    out.insert(out.end(), c.logprobs.begin(), c.logprobs.end());
  }
  return out;
}

TEST(RemoteEngine, StreamsOverTheNetworkLikeALocalEngineAndShutsDownTheServer) {
  child_process server({(pagedserve::testing::binary_dir() / "bin" / "remote_engine").string(),
                        "serve", "--port", "0", "--model", "demo-random"});
  ASSERT_TRUE(server.started());
  const auto port_line = server.read_line(60s);
  ASSERT_TRUE(port_line.has_value()) << "the server printed no port";
  ASSERT_EQ(port_line->rfind("port ", 0), 0u) << *port_line;
  const auto port = static_cast<std::uint16_t>(std::stoi(port_line->substr(5)));

  client_node node;
  auto engine = node.system->middleman().remote_actor<actors::engine_actor>("127.0.0.1", port);
  ASSERT_TRUE(engine) << node.system->render(engine.error());

  const std::vector<generation_request> requests = test_requests();
  std::vector<event_recorder> remote(requests.size());
  sink_guard guard;
  {
    caf::scoped_actor self{*node.system};
    for (std::size_t i = 0; i < requests.size(); ++i) {
      caf::actor sink = node.system->spawn(recording_sink, remote[i].callback());
      guard.sinks.push_back(sink);
      self->request(*engine, 30s, actors::submit_atom::value, requests[i], sink)
          .receive([](request_id) {},
                   [&](caf::error& err) {
                     caf::anon_send_exit(sink, caf::exit_reason::kill);
                     ADD_FAILURE() << "submit " << i << ": " << node.system->render(err);
                   });
    }
    // A rejection crosses the network as the engine's own error.
    self->request(*engine, 30s, actors::submit_atom::value, generation_request{},
                  caf::actor_cast<caf::actor>(self))
        .receive([](request_id) { ADD_FAILURE() << "an empty prompt was accepted"; },
                 [](caf::error& err) { EXPECT_EQ(err.category(), caf::atom("pagedserve")); });
  }
  for (event_recorder& r : remote) ASSERT_TRUE(r.wait_for_finals());

  auto local = engine::start(testing::demo_engine_config());
  ASSERT_TRUE(local.ok()) << local.err().message;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    event_recorder rec;
    ASSERT_TRUE((*local)->submit(requests[i], rec.callback()).ok());
    ASSERT_TRUE(rec.wait_for_finals());
    EXPECT_EQ(remote[i].tokens(), rec.tokens()) << "request " << i;
    // Batched differently here and there: equal up to float rounding.
    const auto remote_logprobs = logprobs_of(remote[i]);
    const auto local_logprobs = logprobs_of(rec);
    ASSERT_EQ(remote_logprobs.size(), requests[i].sampling.logprobs ? rec.tokens().size() : 0u);
    ASSERT_EQ(remote_logprobs.size(), local_logprobs.size());
    for (std::size_t k = 0; k < remote_logprobs.size(); ++k) {
      EXPECT_EQ(remote_logprobs[k].token, local_logprobs[k].token);
      EXPECT_NEAR(remote_logprobs[k].logprob, local_logprobs[k].logprob, 1e-4);
      ASSERT_EQ(remote_logprobs[k].top.size(), 3u);
      for (std::size_t j = 0; j < 3; ++j) {
        EXPECT_NEAR(remote_logprobs[k].top[j].logprob, local_logprobs[k].top[j].logprob, 1e-4);
      }
    }
    EXPECT_EQ(remote[i].tokens().size(), requests[i].sampling.max_tokens);
    ASSERT_EQ(remote[i].finals().size(), 1u);
    EXPECT_EQ(remote[i].finals()[0].reason, finish_reason::length);
    EXPECT_EQ(remote[i].finals()[0].usage.prompt_tokens, requests[i].prompt_token_ids.size());
    EXPECT_EQ(remote[i].finals()[0].usage.completion_tokens, requests[i].sampling.max_tokens);
    // The same stages in the same places among the chunks as locally (none unless asked).
    EXPECT_EQ(remote[i].kinds(), rec.kinds()) << "request " << i;
    EXPECT_EQ(remote[i].lifecycle().size(), requests[i].report_lifecycle ? 3u : 0u);
    for (const request_lifecycle& l : remote[i].lifecycle()) {
      EXPECT_EQ(l.request, remote[i].finals()[0].request);
    }
  }
  EXPECT_EQ((*local)->shutdown(5s).num_leaked_blocks, 0u);

  {
    caf::scoped_actor self{*node.system};
    self->request(*engine, 60s, actors::shutdown_atom::value, std::uint64_t{1000})
        .receive([](const shutdown_report& r) { EXPECT_EQ(r.num_leaked_blocks, 0u); },
                 [&](caf::error& err) { ADD_FAILURE() << node.system->render(err); });
  }
  const auto exit_status = server.wait_exit(60s);
  ASSERT_TRUE(exit_status.has_value()) << "the server did not exit after the shutdown";
  EXPECT_EQ(*exit_status, 0);
}

TEST(RemoteEngine, ConnectingToANodeThatIsNotThereFailsFast) {
  client_node node;
  // Port 1 on loopback: nothing listens there in a test environment.
  auto engine = node.system->middleman().remote_actor<actors::engine_actor>("127.0.0.1", 1);
  EXPECT_FALSE(engine);
}

}  // namespace
}  // namespace pagedserve
