#!/usr/bin/env bash
# The evaluation runs quoted in the README, in order of priority. Every step resumes: re-running this script
# after a stop (even kill -9) finishes what is left, and finished runs cost ~0.1 s each.
# Usage: scripts/reproduce_eval.sh [LINEUP]   (default: embedded; e.g. paper-council-ollama on a GPU host)
# Debates use seeded stratified samples (--sample, same items for every protocol, so runs pair up);
# raise N_CT / N_LIAR to cover more of the split — the runs extend in place.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
LINEUP=${1:-embedded}
N_CT=${N_CT:-32}          # CheckThat dev items per debate run (of a 40-item stratified sample)
N_LIAR=${N_LIAR:-18}      # LIAR valid items per RADAR-multi run (of a 24-item stratified sample)
N_LIAR_SINGLE=${N_LIAR_SINGLE:-24}
SUFFIX=${SUFFIX:-}        # e.g. SUFFIX=-ollama to keep runs of another lineup apart
E="$PY -m debate eval --no-progress --concurrency 1 --max-tokens 64 --lineup $LINEUP"

# 0. Small-model aids, first because they are the cheapest: CheckThat categories 1 and 2 (CATS="2 1 3" adds category 3).
#    The few-shot baseline of each member with the 8 CheckThat TRAIN tweets most similar to the one being
#    judged as earlier turns of the conversation (demos=dialogue, each answered with its gold label), the
#    label decoded first under a JSON schema (answer=label-first), and its P(YES) held against a threshold
#    fitted on a stratified TRAIN sample (eval-fit-threshold writes debate/aids/fitted_thresholds.json; train
#    tweets never see themselves as demonstrations). Scored on a stratified DEV sample of N_DEV.
#    calibration=none on the same prompts (all from the response cache) pairs each calibrated run with its
#    uncalibrated self; `eval-compare RUN constant` pairs it with the constant-label floor on the same items.
#    Then the embedded council on the same dev items: the same prompt for the initial votes, each member
#    voting with its own model's fitted threshold and explaining its vote in one sentence after the label
#    (explain=after: the label is decoded first, so votes are those of the label-only prompt), the chair and
#    one discussion round when they disagree.
#    PART=small runs only this part.
N_TRAIN=${N_TRAIN:-80}    # train tweets the threshold is fitted on (stratified sample, seed 0)
N_DEV=${N_DEV:-100}       # dev sample (stratified, seed 0) ...
DEV_LIMIT=${DEV_LIMIT:-$N_DEV}  # ... of which the first DEV_LIMIT are scored
K=${K_DEMOS:-8}
DEMOS="--param demos=dialogue --param k_demos=$K"
S="$PY -m debate eval --no-progress --concurrency 1 --max-tokens 12 --lineup $LINEUP --protocol baseline --param answer=label-first $DEMOS"
SMALL_RUNS=()
for C in ${CATS:-2 1}; do
  for M in ${MEMBERS:-1 2}; do
    $S --dataset checkthat-train --category $C --sample "$N_TRAIN" --param member=$M --out runs/ct$C-train-s$N_TRAIN-dlg$K-m$M$SUFFIX
    $PY -m debate eval-fit-threshold runs/ct$C-train-s$N_TRAIN-dlg$K-m$M$SUFFIX --write
    for CAL in none threshold; do
      $S --dataset checkthat-dev --category $C --sample "$N_DEV" --limit "$DEV_LIMIT" --param member=$M --param calibration=$CAL \
        --out runs/ct$C-dev-s$N_DEV-dlg$K-$CAL-m$M$SUFFIX
    done
    $PY -m debate eval-compare runs/ct$C-dev-s$N_DEV-dlg$K-threshold-m$M$SUFFIX constant
    SMALL_RUNS+=(runs/ct$C-dev-s$N_DEV-dlg$K-none-m$M$SUFFIX runs/ct$C-dev-s$N_DEV-dlg$K-threshold-m$M$SUFFIX)
  done
  if [ "${COUNCIL:-1}" = 1 ]; then
    $PY -m debate eval --no-progress --concurrency 1 --max-tokens 48 --lineup $LINEUP --protocol council $DEMOS \
      --param calibration=threshold --param explain=after --param rounds=${COUNCIL_ROUNDS:-1} \
      --dataset checkthat-dev --category $C \
      --sample "$N_DEV" --limit "$DEV_LIMIT" --out runs/ct$C-dev-s$N_DEV-dlg$K-council$SUFFIX
    $PY -m debate eval-compare runs/ct$C-dev-s$N_DEV-dlg$K-council$SUFFIX constant
    for M in ${MEMBERS:-1 2}; do
      $PY -m debate eval-compare runs/ct$C-dev-s$N_DEV-dlg$K-council$SUFFIX runs/ct$C-dev-s$N_DEV-dlg$K-threshold-m$M$SUFFIX
    done
    SMALL_RUNS+=(runs/ct$C-dev-s$N_DEV-dlg$K-council$SUFFIX)
  fi
  # the retrieval-only reference: the neighbours' own labels, no language model (scripts/knn_reference.py)
  for RUN in runs/ct$C-dev-s$N_DEV-dlg$K-threshold-m1$SUFFIX runs/ct$C-dev-s$N_DEV-dlg$K-council$SUFFIX; do
    [ -d "$RUN" ] && $PY scripts/knn_reference.py runs/ct$C-train-s$N_TRAIN-dlg$K-m1$SUFFIX "$RUN" "$K"
  done
done
# LIAR (3 classes): RADAR on the embedded lineup (Politician and Scientist open and close over the top-3
# passages, no rebuttal round, no early stop: the cheapest full RADAR debate), the judge's answer decoded
# under its JSON schema; class weights for its three labels fitted on a stratified LIAR TRAIN sample, then
# valid scored with and without them (the second run comes from the response cache).
N_LIAR_TRAIN=${N_LIAR_TRAIN:-90}
N_LIAR_VALID=${N_LIAR_VALID:-150}
if [ "${RADAR:-1}" = 1 ]; then
  R="$PY -m debate eval --no-progress --concurrency 1 --max-tokens 64 --lineup $LINEUP --protocol radar --top-k 3 \
     --param rounds=0 --param early_stop=false --param judge_answer=constrained"
  $R --dataset liar-train --sample "$N_LIAR_TRAIN" --out runs/liar-train-s$N_LIAR_TRAIN-radar-r0$SUFFIX
  $PY -m debate eval-fit-threshold runs/liar-train-s$N_LIAR_TRAIN-radar-r0$SUFFIX --write
  for CAL in none fitted; do
    $R --dataset liar-valid --sample "$N_LIAR_VALID" --param judge_calibration=$CAL \
      --out runs/liar-valid-s$N_LIAR_VALID-radar-r0-$CAL$SUFFIX
  done
  $PY -m debate eval-compare runs/liar-valid-s$N_LIAR_VALID-radar-r0-fitted$SUFFIX constant
  $PY -m debate eval-compare runs/liar-valid-s$N_LIAR_VALID-radar-r0-none$SUFFIX constant
  $PY -m debate eval-compare runs/liar-valid-s$N_LIAR_VALID-radar-r0-fitted$SUFFIX runs/liar-valid-s$N_LIAR_VALID-radar-r0-none$SUFFIX
  SMALL_RUNS+=(runs/liar-valid-s$N_LIAR_VALID-radar-r0-none$SUFFIX runs/liar-valid-s$N_LIAR_VALID-radar-r0-fitted$SUFFIX)
  # A replication on a second sample of the same size (--sample-seed 1; items both samples drew come from
  # the response cache), reported alone and pooled with the first (eval-compare A1,A2: each claim once).
  V0=runs/liar-valid-s$N_LIAR_VALID-radar-r0 V1=runs/liar-valid-s${N_LIAR_VALID}seed1-radar-r0
  for CAL in fitted none; do
    $R --dataset liar-valid --sample "$N_LIAR_VALID" --sample-seed 1 --param judge_calibration=$CAL --out $V1-$CAL$SUFFIX
  done
  for CAL in fitted none; do
    $PY -m debate eval-compare $V1-$CAL$SUFFIX constant
    $PY -m debate eval-compare $V0-$CAL$SUFFIX,$V1-$CAL$SUFFIX constant
  done
  $PY -m debate eval-compare $V0-fitted$SUFFIX,$V1-fitted$SUFFIX $V0-none$SUFFIX,$V1-none$SUFFIX
  SMALL_RUNS+=($V1-none$SUFFIX $V1-fitted$SUFFIX)
  # The packaged Qwen2.5-Coder-1.5B as judge (JUDGE15=1, ~17 min: the debates come from the cache), chosen
  # or not on LIAR train alone: class weights refitted per fold, held-out macro-F1 (scripts/judge_cv.py).
  if [ "${JUDGE15:-0}" = 1 ]; then
    ${R/--lineup $LINEUP/--lineup assets/lineups/embedded-judge-1.5b.json} --dataset liar-train --sample "$N_LIAR_TRAIN" \
      --out runs/liar-train-s$N_LIAR_TRAIN-radar-r0-judge15$SUFFIX
    $PY scripts/judge_cv.py runs/liar-train-s$N_LIAR_TRAIN-radar-r0$SUFFIX runs/liar-train-s$N_LIAR_TRAIN-radar-r0-judge15$SUFFIX
  fi
fi
$PY -m debate eval-table "${SMALL_RUNS[@]}"
if [ "${PART:-all}" = small ]; then exit 0; fi
CT="--dataset checkthat-dev --category 2"
LIAR="--dataset liar-valid --top-k 5 --sample 24"

# 1. CheckThat dev, category 2, the whole split: the few-shot baseline of each lineup member
$E $CT --protocol baseline --param member=1 --out runs/ct2-dev-baseline-m1$SUFFIX
$E $CT --protocol baseline --param member=2 --out runs/ct2-dev-baseline-m2$SUFFIX
# 2. The same category, one stratified sample: council (2 rounds max) and single debate (1 rebuttal round)
$E $CT --sample 40 --limit "$N_CT" --protocol council --param rounds=2 --out runs/ct2-s40-council$SUFFIX
# 3. LIAR valid: RADAR-single, then RADAR multi recorded without early stopping (tau_s=2: the stop agent
#    and round judge still score every round, nothing stops), then the same with early stopping (defaults;
#    the shared prefix of every debate comes from the response cache)
$E $LIAR --protocol radar-single --limit "$N_LIAR_SINGLE" --out runs/liar-s24-radar-single$SUFFIX
$E $LIAR --protocol radar --limit "$N_LIAR" --param rounds=1 --param tau_s=2 --out runs/liar-s24-radar-nostop$SUFFIX
$E $LIAR --protocol radar --limit "$N_LIAR" --param rounds=1 --out runs/liar-s24-radar-stop$SUFFIX
$E $CT --sample 40 --limit "$N_CT" --protocol single --param rounds=1 --out runs/ct2-s40-single$SUFFIX

# 4. Paired comparisons and the early-stop calibration (no model calls)
$PY -m debate eval-compare runs/ct2-s40-council$SUFFIX runs/ct2-dev-baseline-m1$SUFFIX
$PY -m debate eval-compare runs/ct2-s40-council$SUFFIX runs/ct2-s40-single$SUFFIX
$PY -m debate eval-compare runs/liar-s24-radar-nostop$SUFFIX runs/liar-s24-radar-single$SUFFIX
$PY -m debate eval-compare runs/liar-s24-radar-stop$SUFFIX runs/liar-s24-radar-nostop$SUFFIX
$PY -m debate eval-calibrate runs/liar-s24-radar-nostop$SUFFIX
# 5. RADAR multi with the calibrated thresholds, for real (answers come from the response cache: the
#    numbers must equal the calibration's replay of the recorded scores)
read -r TS TC < <($PY -c "import json; c = json.load(open('runs/liar-s24-radar-nostop$SUFFIX/calibration.json'))['chosen']; print(c['tau_s'], c['tau_c'])")
$E $LIAR --protocol radar --limit "$N_LIAR" --param rounds=1 --param tau_s="$TS" --param tau_c="$TC" \
  --out runs/liar-s24-radar-stop-cal$SUFFIX
# 6. The baselines again on the 40-tweet sample, with the reason-first repair (commit "Repair asks for a
#    short reason before the label"): paired with the label-first runs above on the same tweets
$E $CT --sample 40 --protocol baseline --param member=1 --out runs/ct2-s40-baseline-m1$SUFFIX
$E $CT --sample 40 --protocol baseline --param member=2 --out runs/ct2-s40-baseline-m2$SUFFIX
$PY -m debate eval-compare runs/ct2-s40-baseline-m1$SUFFIX runs/ct2-dev-baseline-m1$SUFFIX
$PY -m debate eval-compare runs/ct2-s40-baseline-m2$SUFFIX runs/ct2-dev-baseline-m2$SUFFIX
$PY -m debate eval-table runs/ct2-dev-baseline-m1$SUFFIX runs/ct2-dev-baseline-m2$SUFFIX runs/ct2-s40-council$SUFFIX \
  runs/ct2-s40-single$SUFFIX runs/ct2-s40-baseline-m1$SUFFIX runs/ct2-s40-baseline-m2$SUFFIX \
  runs/liar-s24-radar-single$SUFFIX runs/liar-s24-radar-nostop$SUFFIX runs/liar-s24-radar-stop$SUFFIX \
  runs/liar-s24-radar-stop-cal$SUFFIX
