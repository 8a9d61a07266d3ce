#include "bench/tokenizer/bench_text.h"

#include <array>
#include <string_view>

namespace pagedserve::bench {

namespace {

// splitmix64: a fixed, portable generator (std distributions differ between libraries).
struct rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  template <class T, std::size_t N>
  const T& pick(const std::array<T, N>& items) {
    return items[next() % N];
  }
};

constexpr std::array<std::string_view, 32> words = {
    "the",    "scheduler", "allocates", "blocks",     "for",     "each",   "sequence",  "and",
    "prefix", "cache",     "hits",      "reuse",      "them",    "when",   "requests",  "share",
    "a",      "system",    "prompt",    "throughput", "latency", "It's",   "we'll",     "don't",
    "GPU",    "memory",    "is",        "limited",    "however", "tokens", "Attention", "kernels"};

constexpr std::array<std::string_view, 8> code = {
    "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }\n",
    "def forward(self, x):\n    return self.proj(x) + x  # residual\n",
    "    if (!status.ok()) return status;\n",
    "const auto it = map.find(key);\n",
    "<div class=\"row\"><span>{{ value }}</span></div>\n",
    "SELECT id, name FROM users WHERE age >= 21 ORDER BY name;\n",
    "x = [i ** 2 for i in range(10) if i % 3 == 0]\n",
    "\tfmt.Println(\"hello, world\")\n"};

constexpr std::array<std::string_view, 6> cjk = {"连续批处理在每个生成步动态调度请求。",
                                                 "把 KV cache 切成固定块、按需分配。",
                                                 "日本語のテキストです。",
                                                 "カタカナとひらがな、漢字。",
                                                 "한국어 문장입니다. ",
                                                 "Ελληνικά και русский текст. "};

constexpr std::array<std::string_view, 8> emoji = {"🙂", "🚀", "👩‍💻", "🇨🇳",
                                                   "😀😀",   "✨", "🎉 ",          "❤️"};

void append_sentence(rng& r, std::string& out) {
  const std::size_t n = 5 + r.next() % 12;
  for (std::size_t i = 0; i < n; ++i) {
    std::string_view w = r.pick(words);
    if (i == 0 && w == "the") w = "The";
    out += w;
    out += i + 1 == n ? ". " : (r.next() % 9 == 0 ? ", " : " ");
  }
}

}  // namespace

std::string make_mixed_text(std::size_t bytes, std::uint64_t seed) {
  rng r{seed};
  std::string out;
  out.reserve(bytes + 128);
  while (out.size() < bytes) {
    const std::uint64_t kind = r.next() % 10;
    if (kind < 5) {
      append_sentence(r, out);
    } else if (kind < 7) {
      out += r.pick(code);
    } else if (kind < 8) {
      out += r.pick(cjk);
    } else if (kind < 9) {
      out += r.pick(emoji);
      out += ' ';
    } else {
      out += std::to_string(r.next() % 100000);
      out += r.next() % 2 == 0 ? ".5 " : "\n\n";
    }
  }
  return out;
}

}  // namespace pagedserve::bench
