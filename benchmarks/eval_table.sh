#!/usr/bin/env bash
# The evaluation table of docs/benchmarks.md: offline RoG / ToG / ToG-I and the data's ceiling on 300 seeded
# MetaQA dev questions per hop (held out from the exemplar planner's training half), and on the 16 answerable
# WebQSP questions of RoG's release.
#
#     bash benchmarks/eval_table.sh [DATA_DIR] [OUT_DIR]      # defaults: ../shared/data, eval-results/
#
# Resumable: re-running continues each results file. Prints the markdown table at the end.
set -euo pipefail
DATA=${1:-${KG_AGENT_DATA:-../shared/data}}
OUT=${2:-eval-results}
D=$DATA/metaqa
mkdir -p "$OUT"
METAQA=(metaqa --questions $D/1-hop/qa_dev.txt --questions $D/2-hop/qa_dev.txt --questions $D/3-hop/qa_dev.txt
  --only-lines $D/1-hop/1hop_dev_some_gold_reachable.idx --only-lines $D/2-hop/2hop_dev_some_gold_reachable.idx
  --only-lines $D/3-hop/3hop_dev_some_gold_reachable.idx
  --split-train 0.5 --train-sample 1000 --sample 300 --seed 0 --kg $D/kb.txt --model none --workers 2 --no-progress)
WEBQSP=(rog-jsonl --questions $DATA/webqsp/rog_webqsp_18q.jsonl --skip-unanswerable --model none --no-progress)

run() { local name=$1; shift; echo "== $name"; /usr/bin/time -f "$name: %e s wall, %M KB peak" kg-agent eval "$@" --out "$OUT/$name.json"; }

run ceiling_metaqa "${METAQA[@]}" --method ceiling
run rog_metaqa "${METAQA[@]}" --method rog --planner exemplar
run tog_metaqa "${METAQA[@]}" --method tog
run tog_i_metaqa "${METAQA[@]}" --method tog-i
run rog_webqsp "${WEBQSP[@]}" --method rog --planner similarity
run tog_webqsp "${WEBQSP[@]}" --method tog
run tog_i_webqsp "${WEBQSP[@]}" --method tog-i

kg-agent report "$OUT"/ceiling_metaqa.json "$OUT"/rog_metaqa.json "$OUT"/tog_metaqa.json "$OUT"/tog_i_metaqa.json \
  "$OUT"/rog_webqsp.json "$OUT"/tog_webqsp.json "$OUT"/tog_i_webqsp.json --markdown
