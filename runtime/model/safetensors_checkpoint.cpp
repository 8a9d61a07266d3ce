// load_safetensors_checkpoint: opens model.safetensors (or every shard named by
// model.safetensors.index.json), then checks each tensor the config implies.

#include "runtime/model/checkpoint.h"
#include "runtime/model/checkpoint_files.h"
#include "runtime/model/kv_scales.h"
#include "runtime/model/weight_names.h"

namespace pagedserve {

result<checkpoint> load_safetensors_checkpoint(const std::filesystem::path& dir,
                                               const model_config& config) {
  result<checkpoint_files> files = checkpoint_files::open(dir);
  if (!files) return files.err();
  checkpoint out;
  for (const tensor_spec& spec : expected_tensors(config)) {
    result<located_tensor> where = files->find(spec.name);
    if (!where) {
      return make_error(where.err().code, where.err().message + " (expected shape " +
                                              shape_to_string(spec.shape) + ")");
    }
    if (status added = add_float_tensor(out, spec, *where); !added) return added.err();
  }
  auto kv_scales = read_kv_scales(*files, config);
  if (!kv_scales) return kv_scales.err();
  out.set_kv_scales(std::move(*kv_scales));
  files->warn_about_unused();
  return out;
}

}  // namespace pagedserve
