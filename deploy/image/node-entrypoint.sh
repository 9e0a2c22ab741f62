#!/bin/sh
# The images' entrypoint after tini: sizes V8's old generation from the container's memory limit,
# then replaces itself with the command (so tini's SIGTERM reaches Node directly).
#
# Without it Node sizes its heap from its own heuristics (a fraction of the memory it sees), which
# is far below a container's limit: it would collect garbage hard, or fail with "heap out of
# memory", long before the kernel's limit is near. With it, the heap may grow to what the limit
# allows and the process still stays under it:
#
#   --max-old-space-size = 75 % of the limit - 32 MiB (never below 32 MiB)
#
# The old generation is not all of a process: the young generation, code, stacks and Buffers live
# beside it, hence the quarter of the limit and the 32 MiB left over. With no limit (cgroup v2
# "max", cgroup v1's huge number, no cgroup file), or when NODE_OPTIONS already sets a heap size,
# nothing is added. `node-entrypoint --max-old-space-size-for CGROUP_ROOT` prints the size it
# would set for a cgroup file system mounted at CGROUP_ROOT (the tests use it).
set -eu

# MiB of old space for a limit in bytes; nothing when the limit is absent or means "unlimited".
max_old_space_mb() {
  limit=$1
  case "$limit" in
    '' | *[!0-9]*) return 0 ;; # "max", empty or unreadable: no limit
  esac
  # 16 digits and more is beyond 1 PB: cgroup v1 writes its "unlimited" as 2^63 rounded to pages.
  [ "${#limit}" -ge 16 ] && return 0
  limit_mb=$((limit / 1048576))
  [ "$limit_mb" -gt 0 ] || return 0
  size=$((limit_mb * 3 / 4 - 32))
  [ "$size" -ge 32 ] || size=32
  echo "$size"
}

# The memory limit in bytes of the cgroup mounted at $1: cgroup v2 (memory.max), else v1.
memory_limit() {
  root=$1
  if [ -r "$root/memory.max" ]; then
    cat "$root/memory.max"
  elif [ -r "$root/memory/memory.limit_in_bytes" ]; then
    cat "$root/memory/memory.limit_in_bytes"
  elif [ -r "$root/memory.limit_in_bytes" ]; then
    cat "$root/memory.limit_in_bytes"
  fi
}

if [ "${1:-}" = "--max-old-space-size-for" ]; then
  max_old_space_mb "$(memory_limit "${2:?cgroup root}")"
  exit 0
fi

case " ${NODE_OPTIONS:-} " in
  *--max-old-space-size* | *--max_old_space_size*) ;; # the operator's choice wins
  *)
    size=$(max_old_space_mb "$(memory_limit /sys/fs/cgroup)")
    if [ -n "$size" ]; then
      NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--max-old-space-size=$size"
      export NODE_OPTIONS
    fi
    ;;
esac

exec "$@"
