#!/usr/bin/env bash
# `pnpm test`: every package's tests, then the scripts' own, on a 2-core machine in three lanes.
#
# Most packages run two test files at a time (vitest.shared.ts), one package after another.
# Four run one file at a time and would leave a core idle: deploy (image builds), web-support
# and agent-console (a browser each) run one after the other beside the others, and tests/faults (a whole
# stack of real processes per file, with timing-sensitive scenarios) runs last, alone. Its two
# failover scenarios (a NATS cluster, a Postgres standby: bounds of seconds, not timing races)
# run at the end of the other packages' lane instead (`test:failover`, their own report), which
# ends minutes before the browsers' lane: there they add nothing to the whole run's time.
# Every lane runs even when another failed; the exit code is non-zero when any failed.
# The generated code is made first, once: two lanes must not write it at the same time.
set -uo pipefail
cd "$(dirname "$0")/.."

beside=(--filter=@support/deploy --filter=@support/web-support --filter=@support/agent-console)
alone=(--filter=@support/fault-tests)
others=(--filter='!@support/deploy' --filter='!@support/web-support' --filter='!@support/agent-console' --filter='!@support/fault-tests')

status=0
turbo run generate || status=1
turbo run test --only --concurrency=1 --continue "${beside[@]}" &
beside_lane=$!
turbo run test --only --concurrency=1 --continue "${others[@]}" || status=1
pnpm --filter @support/fault-tests run test:failover || status=1
wait "$beside_lane" || status=1
turbo run test --only --concurrency=1 --continue "${alone[@]}" || status=1
vitest run --config scripts/vitest.config.ts || status=1
exit "$status"
