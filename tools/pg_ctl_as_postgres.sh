#!/usr/bin/env bash
# pg_ctl that also works for root: PostgreSQL (initdb, postgres, pg_ctl) refuses to run as
# root, and pytest-postgresql runs pg_ctl as the current user. Used as its `executable`
# (tests/conftest.py).
# - Not root: exec the real pg_ctl unchanged.
# - Root: on `initdb`, hand the data directory's parent (pytest's fresh tmp dir, which also
#   holds the server log) to the postgres OS user and let postgres traverse its ancestors
#   (pytest tmp dirs are 0700); then run every command as postgres from `/`.
# The real pg_ctl is $PGFLOW_REAL_PG_CTL, else $(pg_config --bindir)/pg_ctl.
# The server does not inherit mirakuru_uuid (set by pytest-postgresql's process library):
# when any Python process that loaded that library exits, it SIGKILLs every process whose
# mirakuru_uuid *contains* its own pid as text, so with pids wrapping at 32768 another
# pytest run on the machine could kill our cluster. pg_ctl stop is how it is stopped.
set -euo pipefail
unset mirakuru_uuid
real=${PGFLOW_REAL_PG_CTL:-$(pg_config --bindir)/pg_ctl}
[ "$(id -u)" = 0 ] || exec "$real" "$@"

datadir="" prev=""
for arg in "$@"; do
  case "$prev" in -D | --pgdata) datadir=$arg ;; esac
  case "$arg" in --pgdata=*) datadir=${arg#--pgdata=} ;; -D?*) datadir=${arg#-D} ;; esac
  prev=$arg
done

if [ "${1:-}" = initdb ] && [ -n "$datadir" ]; then
  parent=$(dirname "$(realpath -m "$datadir")")
  if [ "$parent" = / ]; then
    echo "pg_ctl_as_postgres: refusing to chown / (data directory $datadir)" >&2
    exit 2
  fi
  mkdir -p "$parent"
  chown postgres "$parent"
  dir=$(dirname "$parent")
  while [ "$dir" != / ]; do
    [ -n "$(find "$dir" -maxdepth 0 -perm -o=x)" ] || chmod o+x "$dir"
    dir=$(dirname "$dir")
  done
fi

cd /
exec runuser -u postgres -- "$real" "$@"
