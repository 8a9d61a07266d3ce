#!/usr/bin/env bash
# Trains the built-in demo model from scratch on this machine (about an hour on 2 cores) and
# installs it into models/pagedserve-demo: the corpus (scripts/prepare-demo-corpus.sh), the
# byte-level BPE tokenizer (pagedserve-train-tokenizer), then the Llama (pagedserve-train),
# with a progress bar; the loss curve is drawn into docs/images/demo-model-loss.png.
#
#   bash scripts/train-demo-model.sh [--resume] [extra pagedserve-train flags]
#
# Work files (the state to resume from, loss.csv) stay in build-train/. Not run in CI.
set -euo pipefail
cd "$(dirname "$0")/.."

resume=()
if [[ "${1:-}" == "--resume" ]]; then
  resume=(--resume)
  shift
fi
work=build-train
model=models/pagedserve-demo

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target pagedserve pagedserve-train pagedserve-train-tokenizer
bash scripts/prepare-demo-corpus.sh build-corpus
text=build-corpus/text

if [[ ${#resume[@]} -eq 0 || ! -f "$model/tokenizer.json" ]]; then
  mkdir -p "$model"
  ./build/bin/pagedserve-train-tokenizer --input "$text/train.txt" --vocab-size 4096 --out "$model"
fi

# The shipped model's shape and schedule (docs/demo-model.md says why).
shape=(--hidden-size 256 --intermediate-size 704 --layers 6 --heads 4 --kv-heads 2 --head-dim 64
       --max-position-embeddings 512 --seq-len 256 --batch 16 --seed 1)
data=(--tokenizer "$model" --train "$text/train.txt" --chat "$text/chat.jsonl"
      --heldout "$text/heldout.txt")
# Spinning OpenMP threads keep both cores through the many short parallel loops of a step.
export OMP_WAIT_POLICY=ACTIVE
./build/bin/pagedserve-train "${resume[@]}" "${data[@]}" "${shape[@]}" --out "$work" \
  --steps 1500 --warmup 100 --lr 1.5e-3 --min-lr 1.5e-4 --weight-decay 0.1 \
  --eval-every 100 --eval-windows 64 --save-every 100 --dtype bf16 "$@"

for f in model.safetensors config.json generation_config.json training_summary.json; do
  cp "$work/$f" "$model/$f"
done
cp "$work/loss.csv" "$model/loss.csv"

# The loss curve: training loss per step (thin) and held-out loss at each evaluation.
mkdir -p docs/images
gnuplot <<PLOT
set terminal pngcairo size 900,500 font ",11"
set output "docs/images/demo-model-loss.png"
set datafile separator ","
set key top right
set xlabel "tokens seen (millions)"
set ylabel "cross-entropy (nats per token)"
set grid
set title "pagedserve-demo: training on the Brown Corpus (2 CPU cores)"
plot "$work/loss.csv" every ::1 using (\$2/1e6):3 with lines lw 1 lc rgb "#9ecae1" title "train (per step)", \
     "$work/loss.csv" every ::1 using (\$2/1e6):(\$4 > 0 ? \$4 : 1/0) with linespoints lw 2 pt 7 lc rgb "#d62728" title "held-out"
PLOT
# The table of docs/demo-model.md: held-out perplexity of the trained model, of the same
# shape at its initialisation (--steps 0, same seed) and of a unigram model of the tokenizer,
# all on the same tokens.
./build/bin/pagedserve-train "${data[@]}" "${shape[@]}" --out "$work/init" --steps 0 --no-progress \
  >/dev/null
node corpus/heldout-workload.mjs "$text/heldout.txt" > "$work/heldout.jsonl"
for m in "$model" "$work/init"; do
  ./build/bin/pagedserve eval --model "$m" --workload "$work/heldout.jsonl" \
    --unigram-from "$text/train.txt" --json
done | tee "$work/heldout-eval.jsonl"

echo "installed $model (summary: $model/training_summary.json; curve: docs/images/demo-model-loss.png)"
