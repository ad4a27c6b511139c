-- _start_scheduled_flow: called by the pg_cron job of schedule schedule_name: starts its flow
-- with its input under run_id = scheduled_run_id(schedule_name, slot), where slot is the
-- current minute (cron expressions) or the current N-second bucket ('N seconds' schedules),
-- of the engine's time (pgflow._now()).

create function pgflow._start_scheduled_flow(schedule_name text)
returns uuid
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_schedule pgflow.schedules;
  v_seconds int;
  v_slot timestamptz;
  v_run_id uuid;
  v_now timestamptz;
begin
  select sc.* into v_schedule from pgflow.schedules as sc where sc.schedule_name = _start_scheduled_flow.schedule_name;
  if not found then
    raise notice 'pgflow: schedule % does not exist any more; nothing started', _start_scheduled_flow.schedule_name;
    return null;
  end if;

  -- The time slot this firing belongs to: the minute for cron expressions, the N-second
  -- bucket for interval schedules; the engine's time.
  v_now := pgflow._now();
  v_seconds := substring(v_schedule.schedule from '^\s*(\d+)\s*seconds?\s*$')::int;
  if v_seconds is not null and v_seconds > 0 then
    v_slot := to_timestamp(floor(extract(epoch from v_now) / v_seconds) * v_seconds);
  else
    v_slot := date_trunc('minute', v_now);
  end if;
  v_run_id := pgflow.scheduled_run_id(v_schedule.schedule_name, v_slot);

  -- GUARD: a second firing in the same slot (pg_cron retry, two schedulers) is a no-op.
  perform pg_catalog.pg_advisory_xact_lock(3, pg_catalog.hashtext(v_run_id::text));
  if exists (select 1 from pgflow.runs as r where r.run_id = v_run_id) then
    return null;
  end if;
  perform pgflow.start_flow(v_schedule.flow_slug, v_schedule.input, v_run_id);
  return v_run_id;
end;
$$;

comment on function pgflow._start_scheduled_flow(text) is
'Called by the pg_cron job of schedule schedule_name: starts its flow with its input under
run_id = scheduled_run_id(schedule_name, slot), where slot is the current minute (cron
expressions) or the current N-second bucket (''N seconds'' schedules) of the engine''s time
(pgflow._now()).
Returns the run id, or NULL when that slot already has its run (a repeated firing starts
nothing) or the schedule no longer exists.';
