#!/usr/bin/env bash
# The embedded council's choice (CheckThat TRAIN only) and its targets (CheckThat DEV), as quoted in the
# README section "A council whose members differ". Every step resumes after a stop (even kill -9): re-run
# the script and it finishes what is left; finished runs cost ~1 s each.
#
# 1. Train: each candidate member ("view": a model, its slice of the tweet's nearest train tweets and how they
#    are found, by meaning or by shared words) answers
#    as the label-only few-shot baseline on the same stratified train sample per category (leave-one-out
#    demonstrations), in passes of growing size so that every view has the same items whenever it stops.
# 2. Thresholds for the new views are fitted on those train runs (eval-fit-threshold --write); the
#    embedded members' own (Qwen and SmolLM2 on the 8 nearest) stay the ones fitted on 80 train tweets.
# 3. scripts/choose_council.py scores every candidate in assets/lineups/council-candidates on train.
# 4. Dev: the `embedded` preset's council on a stratified sample of N_DEV per category (seed 0, the same
#    items as the README's earlier dev runs), then `eval-targets` prints the targets table.
# Usage: scripts/reproduce_targets.sh            (N_TRAIN=40 N_DEV=100 PART=train|all DEV_LINEUP=embedded|FILE)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
N_TRAIN=${N_TRAIN:-40}
N_DEV=${N_DEV:-100}
B="$PY -m debate eval --no-progress --concurrency 1 --max-tokens 12 --protocol baseline --param answer=label-first \
   --param demos=dialogue --param k_demos=8 --no-cat2-rule --dataset checkthat-train --sample $N_TRAIN"
D=assets/lineups/council-candidates/d-all-disjoint.json
F=assets/lineups/council-candidates/f-qwen-lexical.json  # member 2: Qwen on the 8 lexical (TF-IDF) neighbours
G=assets/lineups/council-candidates/g-smol-lexical.json  # member 3: SmolLM2 on the 8 lexical neighbours
for L in 20 30 $N_TRAIN; do
  for C in 1 2 3; do
    $B --limit $L --lineup embedded --category $C --param member=2 --out runs/ct$C-train-s$N_TRAIN-v2
    $B --limit $L --lineup $D --category $C --param member=1 --out runs/ct$C-train-s$N_TRAIN-d1
    $B --limit $L --lineup $D --category $C --param member=2 --out runs/ct$C-train-s$N_TRAIN-d2
    $B --limit $L --lineup embedded --category $C --param member=1 --out runs/ct$C-train-s$N_TRAIN-v1
    $B --limit $L --lineup $F --category $C --param member=2 --out runs/ct$C-train-s$N_TRAIN-l1
    $B --limit $L --lineup $G --category $C --param member=3 --out runs/ct$C-train-s$N_TRAIN-l2
  done
done
# A third model family, Gemma 3 270M (base; Gemma Terms of Use, so not installed by `make`), joins the views
# when it is installed: .venv/bin/python -m debate models names the pip command. Its threshold is fitted here.
I=assets/lineups/council-candidates/i-three-models.json  # member 3: Gemma 3 270M on the 8 nearest by meaning
if $PY -c "import sys; from debate.models import packaged as p; sys.exit(p.status(p.get('gemma3-270m'))[0] != 'ready')"; then
  for C in 1 2 3; do
    $B --limit $N_TRAIN --lineup $I --category $C --param member=3 --out runs/ct$C-train-s$N_TRAIN-g3
    $PY -m debate eval-fit-threshold runs/ct$C-train-s$N_TRAIN-g3 ${WRITE:---write}
  done
else
  echo "Gemma 3 270M is not installed: the candidates seating it are left out (python -m debate models says how)."
fi
for C in 1 2 3; do
  $PY -m debate eval-fit-threshold runs/ct$C-train-s$N_TRAIN-d1 runs/ct$C-train-s$N_TRAIN-d2 \
    runs/ct$C-train-s$N_TRAIN-l1 runs/ct$C-train-s$N_TRAIN-l2 ${WRITE:---write}
done
$PY scripts/choose_council.py "$N_TRAIN"
if [ "${PART:-all}" = train ]; then exit 0; fi
# The dev runs: the council as the app runs it with the aids (one discussion round at most, explanations
# after each first vote); category 3 without the "category 2 positive => category 3 positive" post-step,
# which would debate category 2 as well and double the cost.
# DEV_LINEUP runs another council there instead (e.g. a candidate's file), in runs named after it.
DEV_LINEUP=${DEV_LINEUP:-embedded}
NAME=$(basename "$DEV_LINEUP" .json)
RUNS=()
for C in 1 2 3; do
  $PY -m debate eval --no-progress --concurrency 1 --max-tokens 48 --lineup "$DEV_LINEUP" --protocol council \
    --param demos=dialogue --param k_demos=8 --param calibration=threshold --param explain=after --param rounds=1 \
    --no-cat2-rule --dataset checkthat-dev --category $C --sample "$N_DEV" --limit "${DEV_LIMIT:-$N_DEV}" \
    --out runs/ct$C-dev-s$N_DEV-council-$NAME
  RUNS+=(runs/ct$C-dev-s$N_DEV-council-$NAME)
done
$PY -m debate eval-targets "${RUNS[@]}" --train-sample "$N_TRAIN"
