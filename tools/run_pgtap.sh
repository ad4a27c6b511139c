#!/usr/bin/env bash
# Run the pgTAP suite (sql_tests/**/*.test.sql) with pg_prove on a private, throwaway
# PostgreSQL cluster: initdb (as the postgres OS user when run as root, since initdb
# refuses root), pg_cron preloaded, database pgflow_test with pgtap + pgmq + pgflow
# installed via CREATE EXTENSION, then the helpers in sql_tests/_helpers/.
# Usage: tools/run_pgtap.sh [test files or folders...]   (default: all of sql_tests/)
# Needs: make setup (pg_prove, pgTAP, pg_cron, extension files written).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(pg_config --bindir)
DB=pgflow_test
WORK=$(mktemp -d /tmp/pgflow-pgtap.XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$WORK"
chmod 755 "$WORK"
cleanup() { as_pg "$BIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$WORK"; }
trap cleanup EXIT
as_pg "$BIN/initdb" -D "$WORK/data" -U postgres --auth=trust >/dev/null
cat >> "$WORK/data/postgresql.conf" <<CONF
port = $PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WORK'
shared_preload_libraries = 'pg_cron'
cron.database_name = '$DB'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
as_pg "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/log" -w start >/dev/null
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=postgres PGDATABASE=$DB
psql -q -d postgres -c "create database $DB" >/dev/null
psql -q -v ON_ERROR_STOP=1 <<SQL >/dev/null
create extension pgtap;
create extension pg_cron;
create extension pgmq;
create extension pgflow;
SQL
for f in "$ROOT"/sql_tests/_helpers/*.sql; do
  [ -e "$f" ] && psql -q -v ON_ERROR_STOP=1 -f "$f" >/dev/null
done
if [ $# -eq 0 ]; then set -- "$ROOT/sql_tests"; fi
# pg_prove's pgTAP handler matches only the last extension (.sql), so list the *.test.sql
# files here and hand them over with --ext .sql (helpers under _helpers/ are not tests).
mapfile -t TESTS < <(find "$@" -type f -name '*.test.sql' | sort)
if [ ${#TESTS[@]} -eq 0 ]; then echo "no *.test.sql files under: $*" >&2; exit 1; fi
pg_prove --ext .sql "${TESTS[@]}"
