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

# 0. Small-model options (issue 12), first because they are the cheapest: CheckThat categories 1 and 2,
#    the few-shot baseline of each member with the label decoded under a JSON schema (answer=label-first),
#    the 4 most similar CheckThat TRAIN tweets as examples, and its P(YES) against a threshold fitted on a
#    stratified TRAIN sample (eval-fit-threshold writes debate/fitted_thresholds.json); scored on a
#    stratified DEV sample of N_DEV. calibration=none on the same prompts (all from the response cache)
#    pairs each calibrated run with its uncalibrated self; `eval-compare RUN constant` pairs it with the
#    constant-label floor on the same items. PART=small runs only this part.
N_TRAIN=${N_TRAIN:-40}    # train tweets the threshold is fitted on (stratified sample, seed 0)
N_DEV=${N_DEV:-100}       # dev sample (stratified, seed 0) ...
DEV_LIMIT=${DEV_LIMIT:-$N_DEV}  # ... of which the first DEV_LIMIT are scored (the README's runs: see there)
S="$PY -m debate eval --no-progress --concurrency 1 --max-tokens 12 --lineup $LINEUP --protocol baseline \
   --param answer=label-first --param demos=similar --param k_demos=4"
SMALL_RUNS=()
for M in ${MEMBERS:-1 2}; do
  for C in ${CATS:-2 1}; do
    $S --dataset checkthat-train --category $C --sample "$N_TRAIN" --param member=$M --out runs/ct$C-train-s$N_TRAIN-lf-sim-m$M$SUFFIX
    $PY -m debate eval-fit-threshold runs/ct$C-train-s$N_TRAIN-lf-sim-m$M$SUFFIX --write
    for CAL in none threshold; do
      $S --dataset checkthat-dev --category $C --sample "$N_DEV" --limit "$DEV_LIMIT" --param member=$M --param calibration=$CAL \
        --out runs/ct$C-dev-s$N_DEV-lf-sim-$CAL-m$M$SUFFIX
    done
    $PY -m debate eval-compare runs/ct$C-dev-s$N_DEV-lf-sim-threshold-m$M$SUFFIX constant
    $PY -m debate eval-compare runs/ct$C-dev-s$N_DEV-lf-sim-threshold-m$M$SUFFIX runs/ct$C-dev-s$N_DEV-lf-sim-none-m$M$SUFFIX
    SMALL_RUNS+=(runs/ct$C-dev-s$N_DEV-lf-sim-none-m$M$SUFFIX runs/ct$C-dev-s$N_DEV-lf-sim-threshold-m$M$SUFFIX)
  done
done
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
