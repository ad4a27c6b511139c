-- scheduled_run_id: the run id of schedule schedule_name for the time slot starting at slot:
-- md5(schedule_name || '@' || epoch seconds of slot)::uuid, independent of the session time
-- zone.

create function pgflow.scheduled_run_id(schedule_name text, slot timestamptz)
returns uuid
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select md5(
    scheduled_run_id.schedule_name || '@' || extract(epoch from scheduled_run_id.slot)::bigint::text
  )::uuid;
$$;

comment on function pgflow.scheduled_run_id(text, timestamptz) is
'The run id of schedule schedule_name for the time slot starting at slot:
md5(schedule_name || ''@'' || epoch seconds of slot)::uuid, independent of the session time
zone. A slot has at most one run. pgflow-py extension.';
