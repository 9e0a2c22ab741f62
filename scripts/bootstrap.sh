#!/usr/bin/env bash
# Installs what `make up` and `make test` need on a fresh machine of this project's kind
# (Debian bookworm, root, system Node 20 + npm, maybe no pnpm): pnpm 10, the workspace's
# packages (which bring Node 24 through the `node` devDependency), and the PostgreSQL and
# NATS server binaries used when no local server answers. Idempotent; quick when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'bootstrap: %s\n' "$*" >&2; }

# pnpm, at the version the root package.json pins.
pnpm_version=$(sed -n 's/.*"packageManager": *"pnpm@\([^"+]*\).*/\1/p' package.json)
if ! command -v pnpm >/dev/null 2>&1; then
  say "installing pnpm@${pnpm_version:-10}"
  npm install --global --no-fund --no-audit --loglevel=error "pnpm@${pnpm_version:-10}" >&2
  hash -r
fi

# Workspace packages (and Node 24). pnpm answers in about a second when nothing changed.
pnpm install --frozen-lockfile --prefer-offline --reporter=default --loglevel=error >&2

node_version=$(pnpm exec node --version)
case "$node_version" in
  v24.*) ;;
  *) say "expected Node 24 from the node devDependency, got $node_version"; exit 1 ;;
esac

# Server binaries for the fallback when nothing answers on 127.0.0.1:5432 / :4222.
missing=()
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing ${missing[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  else
    say "warning: ${missing[*]} missing and not root: install them (apt-get install ${missing[*]}) unless local servers answer"
  fi
fi
