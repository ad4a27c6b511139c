#!/usr/bin/env bash
# Check the body of every PL/pgSQL function in schema pgflow with plpgsql_check, on a
# throwaway cluster with pg_cron, pgmq and pgflow installed via CREATE EXTENSION (run
# make install-extension first). Prints every finding; exits 1 when any has level "error".
# Warnings (for instance about dynamic SQL whose text is only known at run time) do not fail.
# Trigger functions are checked against a table they are attached to (one with transition
# tables first, passed as oldtable / newtable), or skipped.
# A stub realtime.send (Supabase Realtime's signature) is created first: plpgsql_check also
# checks constant EXECUTE strings, and pgflow._broadcast calls realtime.send that way, guarded
# by pgflow._realtime_enabled().
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/tools/throwaway_cluster.sh"
start_throwaway_cluster pgflow_lint

psql -X -q -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
create extension plpgsql_check;
create extension pg_cron;
create extension pgmq;
create extension pgflow;
create schema realtime;
create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void language sql as '';
SQL

report=$(psql -X -v ON_ERROR_STOP=1 -At -F ' | ' <<'SQL'
with fns as (
  select p.oid, p.prorettype = 'trigger'::regtype as is_trigger, tg.tgrelid as relid,
         tg.tgoldtable as oldtable, tg.tgnewtable as newtable
  from pg_proc p join pg_language l on l.oid = p.prolang
  left join lateral (
    select t.tgrelid, t.tgoldtable, t.tgnewtable from pg_trigger t
    where t.tgfoid = p.oid
    order by (t.tgoldtable is not null)::int + (t.tgnewtable is not null)::int desc
    limit 1
  ) as tg on true
  where p.pronamespace = 'pgflow'::regnamespace and l.lanname = 'plpgsql'
)
select 'checked', count(*)::text, '', '' from fns where not is_trigger or relid is not null
union all
select r.level, fns.oid::regprocedure::text, coalesce(r.lineno::text, '-'),
       r.message || coalesce(' (' || r.detail || ')', '')
from fns
cross join lateral plpgsql_check_function_tb(
  fns.oid, coalesce(fns.relid, 0), fatal_errors => false,
  other_warnings => true, extra_warnings => true,
  oldtable => fns.oldtable, newtable => fns.newtable
) as r
where not fns.is_trigger or fns.relid is not null;
SQL
)

checked=$(grep '^checked' <<<"$report" | cut -d'|' -f2 | tr -d ' ')
findings=$(grep -v '^checked' <<<"$report" || true)
[ -n "$findings" ] && printf '%s\n' "$findings"
errors=$(grep -c '^error' <<<"$findings" || true)
echo "plpgsql_check: checked $checked PL/pgSQL functions in schema pgflow: $errors errors"
[ "$errors" = 0 ]
