#!/usr/bin/env bash
# Run the pgTAP suite (sql_tests/**/*.test.sql) with pg_prove on a private, throwaway
# PostgreSQL cluster (tools/throwaway_cluster.sh): database pgflow_test with pgtap, pg_cron,
# pgmq and pgflow installed via CREATE EXTENSION, then the helpers in sql_tests/_helpers/.
# Usage: tools/run_pgtap.sh [test files or folders...]   (default: all of sql_tests/)
# Needs: make setup (pg_prove, pgTAP, pg_cron, extension files written).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/tools/throwaway_cluster.sh"
start_throwaway_cluster pgflow_test
psql -X -q -v ON_ERROR_STOP=1 <<SQL >/dev/null
create extension pgtap;
create extension pg_cron;
create extension pgmq;
create extension pgflow;
SQL
for f in "$ROOT"/sql_tests/_helpers/*.sql; do
  [ -e "$f" ] && psql -X -q -v ON_ERROR_STOP=1 -f "$f" >/dev/null
done
if [ $# -eq 0 ]; then set -- "$ROOT/sql_tests"; fi
# Explicit file names (pg_prove's --ext/-r directory mode can hand files to the Perl handler).
mapfile -t files < <(find "$@" -name '*.test.sql' | sort)
pg_prove "${files[@]}"
