#!/usr/bin/env bash
# `make test`: installs what is missing (scripts/bootstrap.sh), then runs lint (eslint + buf
# lint), typecheck and every package's tests, and ends with the line
# "N passed, N failed, N skipped", summed by .ci/summarize.ts from the vitest JSON reports that
# every package writes to .ci/out/ (see vitest.shared.ts).
#
# Lint, typecheck and the tests all run even when an earlier one failed, so that one run shows
# every problem; a failed bootstrap stops the run (nothing else can work without it). A failed
# step counts as one failure in the closing line. The closing line is always the last line
# printed on stdout, and the exit code is non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1

rm -rf .ci/out
mkdir -p .ci/out
# The budget of the whole command on the 2-core machine, printed at the end against the time
# it took (TEST_BUDGET_SECONDS overrides it); watched, never enforced.
started=$(date +%s)
budget=${TEST_BUDGET_SECONDS:-900}

failed_steps=()
tests_ok=false
if bash scripts/bootstrap.sh; then
  # Lint (one ESLint process) and typecheck leave part of the two cores idle each: side by side
  # they took 84 s, one after the other 105 s. The typecheck's output waits for the lint's, so
  # that neither is interleaved with the other.
  typecheck_log=$(mktemp)
  pnpm run typecheck >"$typecheck_log" 2>&1 &
  typecheck_pid=$!
  pnpm run lint || failed_steps+=(lint)
  if wait "$typecheck_pid"; then typecheck_ok=true; else typecheck_ok=false; fi
  cat "$typecheck_log"
  rm -f "$typecheck_log"
  [ "$typecheck_ok" = true ] || failed_steps+=(typecheck)
  if pnpm test; then tests_ok=true; else failed_steps+=(tests); fi
else
  failed_steps+=(bootstrap)
fi

echo
echo "test reports:"
flags=()
# When the tests passed, also name packages whose tests wrote no report (uncounted).
[ "$tests_ok" = true ] && flags+=(--check-missing)
for step in ${failed_steps[@]+"${failed_steps[@]}"}; do flags+=(--failed-step "$step"); done
flags+=(--elapsed "$(( $(date +%s) - started ))" --budget "$budget")
if summary=$(pnpm exec node .ci/summarize.ts .ci/out ${flags[@]+"${flags[@]}"} 2>&1); then status=0; else status=$?; fi
if ! tail -n 1 <<<"$summary" | grep -qE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'; then
  # No Node 24 (the bootstrap failed) or the summary broke: nothing could be counted.
  summary=$(printf '  could not read the reports: %s\n0 passed, 1 failed, 0 skipped' "${summary:-no output}")
  status=1
fi
printf '%s\n' "$summary"
[ "$status" -eq 0 ] && [ ${#failed_steps[@]} -eq 0 ]
