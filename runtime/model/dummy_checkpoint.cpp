// make_dummy_checkpoint: deterministic random weights for benchmarks and the demo model,
// like vLLM's load_format "dummy". Each element is a pure function of (seed, tensor name,
// element index) through a counter-based generator, so the bytes do not depend on how the
// fill is split across threads.
//
// Ranges keep activations finite and O(1): weights and embeddings are uniform in
// ±1/sqrt(row length) (a Linear's output then has variance about a third of its input's),
// biases uniform in ±1e-3, norm weights exactly 1.

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "runtime/model/checkpoint.h"
#include "runtime/model/dtype.h"
#include "runtime/model/weight_names.h"

namespace pagedserve {
namespace {

constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ULL;
constexpr std::int64_t chunk_elements = std::int64_t{1} << 20;

// splitmix64's output function: a bijective mix of a 64-bit counter.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t hash_name(std::string_view name) {  // FNV-1a
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
  return h;
}

struct fill_job {
  std::byte* data = nullptr;
  weight_dtype dtype = weight_dtype::f32;
  std::uint64_t stream = 0;  // per-tensor key
  float range = 0.0F;        // half-width of the uniform interval; 0 => constant 1
};

float range_of(const tensor_spec& spec) {
  switch (spec.role) {
    case tensor_role::norm:
      return 0.0F;
    case tensor_role::bias:
      return 1e-3F;
    case tensor_role::embedding:
    case tensor_role::linear:
    case tensor_role::router:
      return static_cast<float>(1.0 / std::sqrt(static_cast<double>(spec.shape.back())));
  }
  return 0.0F;
}

// One 64-bit draw per pair of elements: its top and bottom 24-bit fields give two uniform
// values in [-range, range). `begin` is even, so pairs never straddle two work items.
void draw_uniform(const fill_job& job, std::int64_t begin, std::int64_t count, float* out) {
  if (job.range == 0.0F) {
    std::fill(out, out + count, 1.0F);
    return;
  }
  for (std::int64_t k = 0; k < count; k += 2) {
    const auto pair = static_cast<std::uint64_t>((begin + k) / 2);
    const std::uint64_t bits = mix64(job.stream + pair * golden_gamma);
    out[k] = (static_cast<float>(bits >> 40) * 0x1.0p-23F - 1.0F) * job.range;
    if (k + 1 < count) {
      out[k + 1] = (static_cast<float>(bits & 0xFFFFFFU) * 0x1.0p-23F - 1.0F) * job.range;
    }
  }
}

void fill_range(const fill_job& job, std::int64_t begin, std::int64_t end) {
  constexpr std::int64_t block = 256;
  float values[block];
  std::uint16_t halves[block];
  for (std::int64_t start = begin; start < end; start += block) {
    const std::int64_t count = std::min(block, end - start);
    draw_uniform(job, start, count, values);
    std::byte* out = job.data + static_cast<std::size_t>(start) * element_size(job.dtype);
    if (job.dtype == weight_dtype::bf16) {
      for (std::int64_t k = 0; k < count; ++k) halves[k] = f32_to_bf16(values[k]);
      std::memcpy(out, halves, static_cast<std::size_t>(count) * sizeof(std::uint16_t));
    } else {
      std::memcpy(out, values, static_cast<std::size_t>(count) * sizeof(float));
    }
  }
}

struct work_item {
  std::size_t job = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

// Threads pull fixed-size chunks from a shared counter until none are left.
void run_parallel(const std::vector<fill_job>& jobs, const std::vector<work_item>& items) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next.fetch_add(1); i < items.size(); i = next.fetch_add(1)) {
      fill_range(jobs[items[i].job], items[i].begin, items[i].end);
    }
  };
  const std::size_t num_threads =
      std::min<std::size_t>({std::max(1U, std::thread::hardware_concurrency()), 16, items.size()});
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < num_threads; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
}

}  // namespace

checkpoint make_dummy_checkpoint(const model_config& config, std::uint64_t seed) {
  const weight_dtype dtype =
      config.dtype == weight_dtype::bf16 ? weight_dtype::bf16 : weight_dtype::f32;
  checkpoint out;
  std::vector<fill_job> jobs;
  std::vector<work_item> items;
  for (const tensor_spec& spec : expected_tensors(config)) {
    host_tensor tensor{spec.name, dtype, spec.shape, {}};
    const std::int64_t numel = tensor.numel();
    const std::size_t num_bytes = static_cast<std::size_t>(numel) * element_size(dtype);
    std::shared_ptr<std::byte[]> storage = std::make_shared_for_overwrite<std::byte[]>(num_bytes);
    tensor.bytes = std::span<const std::byte>(storage.get(), num_bytes);
    jobs.push_back({storage.get(), dtype, mix64(seed ^ hash_name(spec.name)), range_of(spec)});
    for (std::int64_t begin = 0; begin < numel; begin += chunk_elements) {
      items.push_back({jobs.size() - 1, begin, std::min(numel, begin + chunk_elements)});
    }
    out.add(std::move(tensor), std::move(storage));
  }
  run_parallel(jobs, items);
  return out;
}

}  // namespace pagedserve
