# The two commands of the README's quick start. Each works alone on a fresh machine:
# scripts/bootstrap.sh installs pnpm, the packages (Node 24) and the server binaries first.
SHELL := bash
export TURBO_TELEMETRY_DISABLED := 1

.PHONY: up test bootstrap reset bench

## Start the whole system with a demo tenant (Ctrl-C stops it).
up: bootstrap
	pnpm exec turbo run generate
	pnpm exec turbo run build --filter=@support/web-support --filter=@support/agent-console
	pnpm run up

## Lint, typecheck, buf lint and all tests; the last line is "N passed, N failed, N skipped".
## (scripts/test.sh runs the bootstrap itself, so that even a failed one ends with that line.)
test:
	@bash scripts/test.sh

## The benchmarks (not tests; docs/performance.md) on a fresh clone: `make bench`, or one suite
## with `make bench SUITE=reads`. Once installed, `pnpm bench [suite]` runs them directly.
bench: bootstrap
	pnpm exec turbo run generate
	pnpm bench $(SUITE)

## Install what is missing (idempotent).
bootstrap:
	@bash scripts/bootstrap.sh

## Delete the local stack's data: .data/ and the `support` database (stop `make up` first).
reset: bootstrap
	pnpm run up --reset
