#!/usr/bin/env bash
# Trains the demo model's speculative draft (docs/speculative-decoding.md, "The demo's
# draft") and installs it into models/pagedserve-demo-draft: a 2-layer Llama of hidden 128
# (926,336 trained parameters; 2.0 MB, shipped in fp8) with the demo's tokenizer, trained by the project's
# trainer on the demo corpus plus the demo model's own greedy continuations of 4,000
# training-paragraph starts (corpus/distill.mjs; sequence-level distillation, so the draft
# learns the choices of the model it drafts for). About 40 minutes on 2 cores.
#
#   bash scripts/train-demo-draft.sh [extra pagedserve-train flags]
#
# Work files stay in build-train-draft/. Not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
work=build-train-draft
model=models/pagedserve-demo-draft
target=models/pagedserve-demo

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target pagedserve pagedserve-train
bash scripts/prepare-demo-corpus.sh build-corpus
text=build-corpus/text
mkdir -p "$work/distill"

# The target's greedy continuations (run-batch: the engine at full batch, no HTTP).
node corpus/distill.mjs requests "$text/train.txt" 4000 >"$work/distill/requests.jsonl"
./build/bin/pagedserve run-batch --model "$target" -i "$work/distill/requests.jsonl" \
  -o "$work/distill/results.jsonl" --max-num-seqs 64 --max-model-len 512
node corpus/distill.mjs text "$work/distill/requests.jsonl" "$work/distill/results.jsonl" \
  >"$work/distill/distill.txt"

# The continuations weigh three times (about as many tokens as the corpus).
distill="$work/distill/distill.txt"
export OMP_WAIT_POLICY=ACTIVE
./build/bin/pagedserve-train --tokenizer "$target" --train "$text/train.txt" "$distill" "$distill" \
  "$distill" --chat "$text/chat.jsonl" --heldout "$text/heldout.txt" --out "$work/model" \
  --hidden-size 128 --intermediate-size 352 --layers 2 --heads 2 --kv-heads 2 --head-dim 64 \
  --max-position-embeddings 512 --seq-len 256 --batch 16 --seed 1 \
  --steps 1500 --warmup 100 --lr 3e-3 --min-lr 3e-4 --weight-decay 0.1 \
  --eval-every 100 --eval-windows 64 --save-every 100 --dtype bf16 "$@"

# Shipped in fp8 (e4m3, a scale per output row), the lm_head untied and quantized too: a
# draft forward reads its weights from memory after the target's forward has evicted them,
# so its bytes are its time (2.9 MB in bf16 with the lm_head, 2.0 MB so). Its proposals
# are only checked by the target, so the output stays the target's exactly.
rm -rf "$work/model-fp8"
./build/bin/pagedserve quantize --model "$work/model" --out "$work/model-fp8" \
  --method fp8-weight-only --lm-head
mkdir -p "$model"
for f in model.safetensors config.json; do cp "$work/model-fp8/$f" "$model/$f"; done
for f in generation_config.json training_summary.json loss.csv; do
  cp "$work/model/$f" "$model/$f"
done
cp "$target/tokenizer.json" "$target/tokenizer_config.json" "$model/"
echo "installed $model (summary: $model/training_summary.json)"
