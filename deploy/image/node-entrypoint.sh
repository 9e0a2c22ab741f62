#!/bin/sh
# The images' entrypoint after tini: sizes V8's old generation from the container's memory limit,
# then replaces itself with the command (so tini's SIGTERM reaches Node directly).
#
# Without it Node sizes its heap from the memory of the whole machine, not the container: on a
# large node it lets the heap grow to gigabytes and, since V8 collects lazily, a process holding
# 30 MB of live objects sits at 300-400 MB resident until the kernel kills it at the limit. With
# it the heap is capped well inside the limit:
#
#   --max-old-space-size  = 25 % of the limit (never below 32 MiB)
#   --max-semi-space-size = 8 MiB (a young generation of 24 MiB instead of up to 192 MiB)
#
# The old generation is a cap on garbage kept, not on what the service needs (its live heap is
# 25-40 MB and its caches are bounded); the rest of the limit is for Node itself (~90 MB: the
# mapped binary, the compiled sources), the young generation, stacks and Buffers, which live
# outside the old generation. A 512 MiB container gets exactly the flags the soak benchmark
# measured (128 and 8). With no limit (cgroup v2 "max", cgroup v1's huge number, no cgroup
# file) nothing is added; a flag that NODE_OPTIONS already sets is left as the operator chose.
# `node-entrypoint --max-old-space-size-for CGROUP_ROOT` prints the old-space size it would set
# for a cgroup file system mounted at CGROUP_ROOT (the tests use it).
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
  size=$((limit_mb / 4))
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

# NODE_ENTRYPOINT_CGROUP_ROOT: where the cgroup file system is read (tests point it elsewhere).
size=$(max_old_space_mb "$(memory_limit "${NODE_ENTRYPOINT_CGROUP_ROOT:-/sys/fs/cgroup}")")
if [ -n "$size" ]; then
  case " ${NODE_OPTIONS:-} " in
    *--max-old-space-size* | *--max_old_space_size*) ;; # the operator's choice wins
    *) NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--max-old-space-size=$size" ;;
  esac
  case " ${NODE_OPTIONS:-} " in
    *--max-semi-space-size* | *--max_semi_space_size*) ;;
    *) NODE_OPTIONS="$NODE_OPTIONS --max-semi-space-size=8" ;;
  esac
  export NODE_OPTIONS
fi

exec "$@"
