#pragma once
// stored_file_builder: a model.safetensors written tensor by tensor from literal words and
// bit patterns, so format readers are checked against values worked out by hand from
// QUANTIZATION.md, not against our own writer.

#include <boost/json.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/runtime/model/model_test_support.h"

namespace pagedserve::testing {

class stored_file_builder {
 public:
  template <class T>
  stored_file_builder& add(const std::string& name, const std::string& dtype,
                           std::vector<std::int64_t> shape, const std::vector<T>& values) {
    const std::size_t begin = raw_.data.size();
    raw_.data.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
    boost::json::array dims;
    for (std::int64_t d : shape) dims.push_back(d);
    raw_.header[name] = {
        {"dtype", dtype}, {"shape", dims}, {"data_offsets", {begin, raw_.data.size()}}};
    return *this;
  }

  void write(const std::filesystem::path& dir) const { raw_.write(dir / "model.safetensors"); }

 private:
  raw_safetensors raw_;
};

}  // namespace pagedserve::testing
