-- Scheduled flows: pg_cron jobs that start runs, one run per schedule and time slot.

create function pgflow._cron_version()
returns text
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_version text;
begin
  select e.extversion into v_version from pg_catalog.pg_extension as e where e.extname = 'pg_cron';
  if v_version is null then
    raise exception using
      errcode = 'undefined_object',
      message = 'pg_cron is not installed in this database',
      hint = 'Add pg_cron to shared_preload_libraries, set cron.database_name to this database '
             'and run CREATE EXTENSION pg_cron (Debian: apt install postgresql-<major>-cron).';
  end if;
  return v_version;
end;
$$;

comment on function pgflow._cron_version() is
'Returns the installed pg_cron version; raises undefined_object with installation advice
when pg_cron is not installed in this database.';

create function pgflow._schedule_job_name(schedule_name text)
returns text
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select 'pgflow_schedule:' || schedule_name;
$$;

comment on function pgflow._schedule_job_name(text) is
'The pg_cron job name of schedule schedule_name: pgflow_schedule:<schedule_name> (at most
63 characters, pg_cron''s name limit, since schedule names have at most 47).';

create function pgflow.schedule_flow(
  flow_slug text,
  schedule text,
  input jsonb default '{}'::jsonb,
  schedule_name text default null
)
returns bigint
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_name text := coalesce(schedule_flow.schedule_name, schedule_flow.flow_slug);
  v_job_name text := pgflow._schedule_job_name(v_name);
  v_job_id bigint;
  -- Kept in a variable: the cron schema may not exist when this function is checked.
  v_schedule_sql text := 'select cron.schedule($1, $2, $3)';
begin
  perform pgflow._cron_version();

  -- VALIDATE
  if not exists (select 1 from pgflow.flows as f where f.flow_slug = schedule_flow.flow_slug) then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', schedule_flow.flow_slug);
  end if;
  if schedule_flow.schedule_name is not null
     and (not pgflow.is_valid_slug(schedule_flow.schedule_name) or length(schedule_flow.schedule_name) > 47) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Invalid schedule_name %L: use a slug of at most 47 characters', schedule_flow.schedule_name);
  end if;
  if schedule_flow.schedule is null or btrim(schedule_flow.schedule) = '' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Schedule of flow %L must be a cron expression such as ''0 * * * *''', schedule_flow.flow_slug);
  end if;
  if schedule_flow.input is null then
    raise exception using
      errcode = 'not_null_violation',
      message = format('Input of scheduled flow %L must not be NULL', schedule_flow.flow_slug);
  end if;
  if jsonb_typeof(schedule_flow.input) <> 'array' and exists (
    select 1 from pgflow.steps as s
    where s.flow_slug = schedule_flow.flow_slug and s.step_type = 'map' and s.deps_count = 0
  ) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Flow %L has root map steps but the scheduled input is not an array (got %s)',
                       schedule_flow.flow_slug, jsonb_typeof(schedule_flow.input));
  end if;

  -- MUTATE: one job per name; concurrent calls for the same name serialise here, and
  -- pg_cron replaces a job of the same name.
  perform pg_catalog.pg_advisory_xact_lock(2, pg_catalog.hashtext(v_name));
  execute v_schedule_sql into v_job_id
    using v_job_name, schedule_flow.schedule, format('select pgflow._start_scheduled_flow(%L)', v_name);
  insert into pgflow.schedules (schedule_name, flow_slug, schedule, input, job_id)
  values (v_name, schedule_flow.flow_slug, schedule_flow.schedule, schedule_flow.input, v_job_id)
  on conflict on constraint schedules_pkey do update
    set flow_slug = excluded.flow_slug,
        schedule = excluded.schedule,
        input = excluded.input,
        job_id = excluded.job_id,
        updated_at = now();
  return v_job_id;
end;
$$;

comment on function pgflow.schedule_flow(text, text, jsonb, text) is
'Creates or replaces schedule schedule_name (default: the flow slug): a row in
pgflow.schedules and the pg_cron job pgflow_schedule:<schedule_name> that starts flow flow_slug with input (jsonb; an array for flows with a root map) on schedule
(a cron expression; pg_cron >= 1.5 also takes ''N seconds''). Each start is keyed by the
job and its time slot, so a slot never starts two runs (see _start_scheduled_flow).
Returns the pg_cron job id. Idempotent; two concurrent calls leave one job. Raises
undefined_object when pg_cron is not installed, foreign_key_violation for an unknown flow,
invalid_parameter_value for an empty schedule, a bad schedule_name or a non-array input to
a root map, and whatever pg_cron raises for an invalid schedule. pgflow-py extension.';

create function pgflow.unschedule_flow(flow_slug text, schedule_name text default null)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_name text := coalesce(unschedule_flow.schedule_name, unschedule_flow.flow_slug);
  v_removed boolean;
  v_unschedule_sql text :=
    'select cron.unschedule(j.jobid) from cron.job as j where j.jobname = $1 and j.username = current_user';
begin
  perform pgflow._cron_version();
  perform pg_catalog.pg_advisory_xact_lock(2, pg_catalog.hashtext(v_name));
  execute v_unschedule_sql into v_removed using pgflow._schedule_job_name(v_name);
  delete from pgflow.schedules as sc
  where sc.schedule_name = v_name and sc.flow_slug = unschedule_flow.flow_slug;
  return coalesce(v_removed, false) or found;
end;
$$;

comment on function pgflow.unschedule_flow(text, text) is
'Removes schedule schedule_name (default: the flow slug) of flow flow_slug: its
pgflow.schedules row and its pg_cron job. Returns true when something was removed, false
when there was nothing (idempotent). Raises
undefined_object when pg_cron is not installed. pgflow-py extension.';

create function pgflow.sync_flow_schedule(flow_slug text, schedule text, input jsonb default '{}'::jsonb)
returns text
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_row pgflow.schedules;
begin
  select sc.* into v_row from pgflow.schedules as sc where sc.schedule_name = sync_flow_schedule.flow_slug;
  if sync_flow_schedule.schedule is null then
    if v_row.schedule_name is null then
      return 'none';
    end if;
    perform pgflow.unschedule_flow(sync_flow_schedule.flow_slug);
    return 'removed';
  end if;
  if v_row.schedule_name is not null
     and v_row.flow_slug = sync_flow_schedule.flow_slug
     and v_row.schedule = sync_flow_schedule.schedule
     and v_row.input = coalesce(sync_flow_schedule.input, '{}'::jsonb) then
    return 'unchanged';
  end if;
  perform pgflow.schedule_flow(sync_flow_schedule.flow_slug, sync_flow_schedule.schedule,
                               coalesce(sync_flow_schedule.input, '{}'::jsonb));
  return case when v_row.schedule_name is null then 'created' else 'updated' end;
end;
$$;

comment on function pgflow.sync_flow_schedule(text, text, jsonb) is
'Makes the default schedule of flow flow_slug (schedule_name = flow_slug) match a flow
definition: schedule NULL removes it, otherwise it is created or replaced when its schedule
or input (default {}) differ. Returns what happened: created, updated, unchanged, removed or
none. Named schedules are never touched. Raises what schedule_flow raises (for example
undefined_object without pg_cron, unless there is nothing to remove). Used by the worker at
start and by `pgflow schedule sync`. pgflow-py extension.';

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
begin
  select sc.* into v_schedule from pgflow.schedules as sc where sc.schedule_name = _start_scheduled_flow.schedule_name;
  if not found then
    raise notice 'pgflow: schedule % does not exist any more; nothing started', _start_scheduled_flow.schedule_name;
    return null;
  end if;

  -- The time slot this firing belongs to: the minute for cron expressions, the N-second
  -- bucket for interval schedules; database time.
  v_seconds := substring(v_schedule.schedule from '^\s*(\d+)\s*seconds?\s*$')::int;
  if v_seconds is not null and v_seconds > 0 then
    v_slot := to_timestamp(floor(extract(epoch from now()) / v_seconds) * v_seconds);
  else
    v_slot := date_trunc('minute', now());
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
expressions) or the current N-second bucket (''N seconds'' schedules), database time.
Returns the run id, or NULL when that slot already has its run (a repeated firing starts
nothing) or the schedule no longer exists.';

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
