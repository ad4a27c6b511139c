-- pgflow 0.1.0 -> 0.2.0. Frozen once released: never edit; add a new upgrade script.
-- Written by hand from the diff of extension/sql/ between the two versions;
-- tests/integration/test_upgrade.py proves that 0.1.0 + this script gives the same catalog
-- as a fresh 0.2.0 install. Runs as the ALTER EXTENSION pgflow UPDATE script and, for
-- plain-SQL installs, through `pgflow migrate` in one transaction.

insert into pgflow.installed_versions (version, install_method)
select
  '0.2.0',
  case when exists (select 1 from pg_catalog.pg_extension where extname = 'pgflow')
    then 'extension' else 'sql' end;

-- Added: scheduled flows (pg_cron).

-- ==== 055_tables_schedules.sql ====
-- Scheduled flows (pg_cron). pgflow-py extension; upstream has no schedules.

create table pgflow.schedules (
  schedule_name text primary key,
  flow_slug text not null references pgflow.flows (flow_slug),
  schedule text not null,
  input jsonb not null,
  job_id bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint schedule_name_is_valid check (
    pgflow.is_valid_slug(schedule_name) and length(schedule_name) <= 47
  )
);

comment on table pgflow.schedules is
'One row per schedule created by pgflow.schedule_flow: its pg_cron job
(pgflow_schedule:<schedule_name>, id job_id) starts flow_slug with input on schedule (a
cron expression, or ''N seconds'' on pg_cron >= 1.5), one run per time slot.';

create index idx_schedules_flow_slug on pgflow.schedules (flow_slug);

-- ==== 270_function_schedules.sql ====
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

-- Changed: delete_flow_and_data also removes the flow's schedules.

create or replace function pgflow.delete_flow_and_data(p_flow_slug text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if exists (select 1 from pgmq.meta as m where m.queue_name = p_flow_slug) then
    perform pgmq.drop_queue(p_flow_slug);
  else
    raise notice 'pgflow.delete_flow_and_data: queue % does not exist', p_flow_slug;
  end if;
  if exists (select 1 from pg_catalog.pg_extension as e where e.extname = 'pg_cron') then
    perform pgflow.unschedule_flow(sc.flow_slug, sc.schedule_name)
    from pgflow.schedules as sc where sc.flow_slug = p_flow_slug;
  end if;
  delete from pgflow.schedules as sc where sc.flow_slug = p_flow_slug;
  delete from pgflow.step_tasks as t where t.flow_slug = p_flow_slug;
  delete from pgflow.step_states as ss where ss.flow_slug = p_flow_slug;
  delete from pgflow.runs as r where r.flow_slug = p_flow_slug;
  delete from pgflow.deps as d where d.flow_slug = p_flow_slug;
  delete from pgflow.steps as s where s.flow_slug = p_flow_slug;
  delete from pgflow.flows as f where f.flow_slug = p_flow_slug;
end;
$$;

comment on function pgflow.delete_flow_and_data(text) is
'Deletes flow p_flow_slug with everything it owns: its pgmq queue and archive (a NOTICE,
not an error, when the queue is absent), its schedules and their pg_cron jobs, task rows, step states, runs, dependencies, steps
and the flow row. Irreversible; meant for development and recompilation.
As upstream pgflow 0.14.1.';

-- ==================================================================== Payload size limit (#5)
-- Run inputs (start_flow) and task outputs (complete_task) are limited to
-- pgflow.max_payload_bytes (default 16 MiB). Placed before the security section, which
-- must stay last (it re-applies search_path and SECURITY DEFINER to replaced functions).

-- ==== 090_function__check_payload_size.sql ====
-- _max_payload_bytes / _check_payload_size: the size limit on run inputs and task outputs.

create or replace function pgflow._max_payload_bytes()
returns bigint
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_setting text := pg_catalog.current_setting('pgflow.max_payload_bytes', true);
  v_bytes bigint;
begin
  -- Unset (NULL, or '' after a RESET in the session): the default, 16 MiB.
  if v_setting is null or pg_catalog.btrim(v_setting) = '' then
    return 16777216;
  end if;
  -- VALIDATE: a positive size, in bytes or with a unit pg_size_bytes knows.
  if v_setting ~* '^\s*[0-9]{1,15}(\.[0-9]+)?\s*(bytes|kb|mb|gb|tb|pb)?\s*$' then
    v_bytes := pg_catalog.pg_size_bytes(v_setting);
  end if;
  if v_bytes is null or v_bytes < 1 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Invalid value %L for setting pgflow.max_payload_bytes', v_setting),
      detail = 'The limit must be a positive size: a number of bytes (16777216) or a number '
               || 'with a unit (''16MB''; units bytes, kB, MB, GB, TB, PB).',
      hint = 'Set it with ALTER DATABASE / ALTER ROLE ... SET pgflow.max_payload_bytes = ''16MB'', '
             || 'or reset it for the default (16MB).';
  end if;
  return v_bytes;
end;
$$;

comment on function pgflow._max_payload_bytes() is
'The size limit, in bytes, of a run input (start_flow) and of a task output
(complete_task): the setting pgflow.max_payload_bytes (a number of bytes, or a size with a
unit such as ''64MB''), 16777216 (16 MiB) when it is not set. Set it per database, role or
session: ALTER DATABASE db SET pgflow.max_payload_bytes = ''64MB''. Raises
invalid_parameter_value when the setting is not a positive size. pgflow-py extension.';

create or replace function pgflow._check_payload_size(payload jsonb, payload_name text)
returns void
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_size int := pg_catalog.pg_column_size(payload);
  v_limit bigint := pgflow._max_payload_bytes();
begin
  if v_size > v_limit then
    raise exception using
      errcode = 'program_limit_exceeded',
      message = format('%s is %s bytes, over the limit of %s bytes (setting pgflow.max_payload_bytes)',
                       payload_name, v_size, v_limit),
      hint = 'Pass a reference to large data (a table row, an object-store key) instead of the '
             || 'data itself, or raise the limit: '
             || 'ALTER DATABASE ... SET pgflow.max_payload_bytes = ''64MB''.';
  end if;
end;
$$;

comment on function pgflow._check_payload_size(jsonb, text) is
'Raises program_limit_exceeded "<payload_name> is <n> bytes, over the limit of <limit>
bytes (setting pgflow.max_payload_bytes)" when payload is larger than _max_payload_bytes().
Size = pg_column_size(payload): the bytes of the binary jsonb value (read from its header,
so the check costs the same for any size; close to the length of the JSON text). NULL
passes. Called by start_flow (run input) and complete_task (task output) before they
write anything. pgflow-py extension.';

-- ==== 110_function_start_flow.sql ====
-- start_flow: create a run with its step states and start whatever is ready.

create or replace function pgflow.start_flow(
  flow_slug text,
  input jsonb,
  run_id uuid default null
)
returns setof pgflow.runs
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
  v_root_map text;
  v_steps_count int;
  v_root_tasks int;
begin
  -- VALIDATE: unknown flow, missing or oversized input, root maps without an array.
  perform 1 from pgflow.flows as f where f.flow_slug = start_flow.flow_slug;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', start_flow.flow_slug);
  end if;
  select s.step_slug into v_root_map
  from pgflow.steps as s
  where s.flow_slug = start_flow.flow_slug and s.step_type = 'map' and s.deps_count = 0
  order by s.step_index
  limit 1;
  if start_flow.input is null then
    raise exception using
      errcode = 'not_null_violation',
      message = case
        when v_root_map is not null then format('Flow %L has root map steps but input is NULL', start_flow.flow_slug)
        else format('Flow %L cannot start: input is NULL', start_flow.flow_slug)
      end,
      hint = 'Pass a JSON value, for example ''{}''::jsonb (a JSON array for flows with a root map step).';
  end if;
  perform pgflow._check_payload_size(start_flow.input, format('Input of flow %L', start_flow.flow_slug));
  if v_root_map is not null and jsonb_typeof(start_flow.input) <> 'array' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Flow %L has root map steps but input is not an array (got %s)',
                       start_flow.flow_slug, jsonb_typeof(start_flow.input)),
      hint = format('Root map step %L maps over the run input, which must be a JSON array.', v_root_map);
  end if;
  if start_flow.run_id is not null
     and exists (select 1 from pgflow.runs as r where r.run_id = start_flow.run_id) then
    raise exception using
      errcode = 'unique_violation',
      message = format('Run %s already exists', start_flow.run_id);
  end if;

  -- MUTATE: the run and one step state per step. (The array length is computed apart:
  -- inside the CASE below the planner could fold it for a non-array input and raise.)
  if jsonb_typeof(start_flow.input) = 'array' then
    v_root_tasks := jsonb_array_length(start_flow.input);
  end if;
  select count(*) into v_steps_count from pgflow.steps as s where s.flow_slug = start_flow.flow_slug;

  insert into pgflow.runs (run_id, flow_slug, input, remaining_steps)
  values (coalesce(start_flow.run_id, gen_random_uuid()), start_flow.flow_slug, start_flow.input, v_steps_count)
  returning * into v_run;

  insert into pgflow.step_states (flow_slug, run_id, step_slug, remaining_deps, initial_tasks)
  select
    s.flow_slug,
    v_run.run_id,
    s.step_slug,
    s.deps_count,
    case
      when s.step_type = 'map' and s.deps_count = 0 then v_root_tasks
      when s.step_type = 'map' then null
      else 1
    end
  from pgflow.steps as s
  where s.flow_slug = start_flow.flow_slug;

  if pgflow._realtime_enabled() then
    perform pgflow._broadcast(v_run.run_id, 'run:started', jsonb_build_object(
      'event_type', 'run:started',
      'run_id', v_run.run_id,
      'flow_slug', v_run.flow_slug,
      'input', v_run.input,
      'status', 'started',
      'remaining_steps', v_run.remaining_steps,
      'started_at', v_run.started_at
    ));
  end if;

  -- CASCADE: conditions, empty maps, ready steps, completion.
  if pgflow._cascade(v_run.run_id) then
    perform pgflow.start_ready_steps(v_run.run_id);
    perform pgflow.maybe_complete_run(v_run.run_id);
  end if;

  -- RETURN the run as it is now (it may already be completed or failed).
  return query select r.* from pgflow.runs as r where r.run_id = v_run.run_id;
end;
$$;

comment on function pgflow.start_flow(text, jsonb, uuid) is
'Starts a run of flow flow_slug with input (jsonb; a JSON array when the flow has a root map
step) and returns the runs row as it is after the initial cascade: root steps are queued,
conditions evaluated, empty maps completed, so the run may already be completed or failed.
run_id: optional caller-chosen uuid (random when NULL). Raises, writing nothing:
foreign_key_violation for an unknown flow; not_null_violation for a NULL input;
program_limit_exceeded when input is larger than pgflow.max_payload_bytes (default 16 MiB,
measured with pg_column_size; upstream has no limit); invalid_parameter_value when a root
map gets a non-array input (or the size setting is invalid); unique_violation when run_id
already exists. Broadcasts run:started when realtime.send exists.
As upstream pgflow 0.14.1 start_flow, stricter where noted.';

-- ==== 190_function_complete_task.sql ====
-- complete_task: a worker reports a task's output.

create or replace function pgflow.complete_task(run_id uuid, step_slug text, task_index int, output jsonb)
returns setof pgflow.step_tasks
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
  v_state pgflow.step_states;
  v_step pgflow.steps;
  v_task pgflow.step_tasks;
  v_child_map text;
  v_produced text;
begin
  -- GUARD: a report for a failed run changes nothing, not even the archive.
  select r.* into v_run from pgflow.runs as r where r.run_id = complete_task.run_id;
  if not found then
    return;
  end if;
  if v_run.status = 'failed' then
    return query select t.* from pgflow.step_tasks as t
      where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
        and t.task_index = complete_task.task_index;
    return;
  end if;

  -- LOCK: run -> step_state -> step_task, the order every transition uses.
  select r.* into v_run from pgflow.runs as r where r.run_id = complete_task.run_id for update;
  select ss.* into v_state from pgflow.step_states as ss
    where ss.run_id = complete_task.run_id and ss.step_slug = complete_task.step_slug
    for update;
  select t.* into v_task from pgflow.step_tasks as t
    where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
      and t.task_index = complete_task.task_index
    for update;
  if v_task.run_id is null then
    return;
  end if;

  -- GUARD: the run failed while we waited for the lock.
  if v_run.status = 'failed' then
    return next v_task;
    return;
  end if;
  -- GUARD: late report for a step that is no longer started (skipped, failed): only the
  -- message goes to the archive.
  if v_state.status <> 'started' then
    perform pgflow._archive_task_message(complete_task.run_id, complete_task.step_slug, complete_task.task_index);
    return next v_task;
    return;
  end if;
  -- GUARD: duplicate or late report for a task that is not started (already completed,
  -- failed, or requeued by the stalled-task sweep): nothing changes.
  if v_task.status <> 'started' then
    return next v_task;
    return;
  end if;

  -- VALIDATE: an output over pgflow.max_payload_bytes raises; nothing has been written, so
  -- the task stays started (the worker then reports it with fail_task).
  perform pgflow._check_payload_size(complete_task.output, format('Output of task %s[%s] of run %s',
    complete_task.step_slug, complete_task.task_index, complete_task.run_id));

  select s.* into v_step from pgflow.steps as s
    where s.flow_slug = v_state.flow_slug and s.step_slug = v_state.step_slug;

  -- VALIDATE: a single step feeding a map must produce an array. A violation fails the run
  -- at once, whatever max_attempts and when_exhausted say.
  if v_step.step_type = 'single' then
    select d.step_slug into v_child_map
    from pgflow.deps as d
    join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
    join pgflow.step_states as css on css.run_id = complete_task.run_id and css.step_slug = d.step_slug
    where d.flow_slug = v_step.flow_slug
      and d.dep_slug = v_step.step_slug
      and cs.step_type = 'map'
      and css.initial_tasks is null
    order by cs.step_index
    limit 1;
    if v_child_map is not null and jsonb_typeof(complete_task.output) is distinct from 'array' then
      v_produced := coalesce(jsonb_typeof(complete_task.output), 'null');
      perform pgflow._fail_task_with_type_violation(v_task, v_child_map, complete_task.output, v_produced);
      return query select t.* from pgflow.step_tasks as t
        where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
          and t.task_index = complete_task.task_index;
      return;
    end if;
  end if;

  -- MUTATE: the task, then its step (the last task completes it and stores the output:
  -- a map's is the array of task outputs in task_index order).
  update pgflow.step_tasks as t
  set status = 'completed',
      completed_at = now(),
      output = complete_task.output
  where t.run_id = complete_task.run_id and t.step_slug = complete_task.step_slug
    and t.task_index = complete_task.task_index
  returning t.* into v_task;

  update pgflow.step_states as ss
  set remaining_tasks = ss.remaining_tasks - 1,
      status = case when ss.remaining_tasks = 1 then 'completed' else ss.status end,
      completed_at = case when ss.remaining_tasks = 1 then now() end,
      output = case
        when ss.remaining_tasks <> 1 then null
        when v_step.step_type = 'map' then (
          select jsonb_agg(t.output order by t.task_index)
          from pgflow.step_tasks as t
          where t.run_id = ss.run_id and t.step_slug = ss.step_slug
        )
        else complete_task.output
      end
  where ss.run_id = complete_task.run_id and ss.step_slug = complete_task.step_slug
  returning ss.* into v_state;

  perform pgflow._archive_task_message(complete_task.run_id, complete_task.step_slug, complete_task.task_index);

  if v_state.status = 'completed' then
    perform pgflow._complete_step_cascade(v_state, v_step);
  end if;

  return next v_task;
end;
$$;

comment on function pgflow.complete_task(uuid, text, int, jsonb) is
'Records output (jsonb, stored as given: 0, false, "", {} and null stay themselves) for
task (run_id, step_slug, task_index) and returns the step_tasks row. Locks run, then
step_state, then step_task. The last task of a step completes it (output: the task output,
or for a map the array of task outputs in task_index order), releases its dependents,
runs conditions and the empty-map cascade, starts ready steps and completes the run when
nothing remains; step:completed is broadcast before any cascaded event. A single step
whose output feeds a map step must produce an array: otherwise the task and step fail with
[TYPE_VIOLATION] and the run fails at once. Late or duplicate calls change nothing: a
failed run returns the row untouched (no archive); a step no longer started only archives
the message; a task not started (completed, failed, requeued) is returned as is. Unknown
task: empty result. Raises program_limit_exceeded, changing nothing, when the output of a
started task is larger than pgflow.max_payload_bytes (default 16 MiB, measured with
pg_column_size; upstream has no limit). As upstream pgflow 0.14.1 complete_task, stricter
where noted.';

-- ==================================================================== Shape validation (#5)
-- ensure_flow_compiled rejects shapes that are not {"steps": [...]}.

create or replace function pgflow.ensure_flow_compiled(flow_slug text, shape jsonb, allow_data_loss boolean default false)
returns jsonb
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_diffs text[];
begin
  -- VALIDATE: a shape is an object with a steps array (else a typo compiles an empty flow).
  if jsonb_typeof(ensure_flow_compiled.shape) is distinct from 'object'
     or jsonb_typeof(ensure_flow_compiled.shape -> 'steps') is distinct from 'array' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Shape of flow %L must be a JSON object with a "steps" array (got %s)',
                       ensure_flow_compiled.flow_slug,
                       coalesce(jsonb_typeof(ensure_flow_compiled.shape), 'NULL')),
      hint = 'Pass flow.shape() of a pgflow DSL flow; see pgflow._get_flow_shape for the format.';
  end if;

  perform pg_catalog.pg_advisory_xact_lock(1, pg_catalog.hashtext(ensure_flow_compiled.flow_slug));

  if not exists (select 1 from pgflow.flows as f where f.flow_slug = ensure_flow_compiled.flow_slug) then
    perform pgflow._create_flow_from_shape(ensure_flow_compiled.flow_slug, ensure_flow_compiled.shape);
    return jsonb_build_object('status', 'compiled', 'differences', '[]'::jsonb);
  end if;

  v_diffs := pgflow._compare_flow_shapes(
    ensure_flow_compiled.shape, pgflow._get_flow_shape(ensure_flow_compiled.flow_slug)
  );
  if cardinality(v_diffs) = 0 then
    return jsonb_build_object('status', 'verified', 'differences', '[]'::jsonb);
  end if;

  if pgflow.is_local() or ensure_flow_compiled.allow_data_loss then
    perform pgflow.delete_flow_and_data(ensure_flow_compiled.flow_slug);
    perform pgflow._create_flow_from_shape(ensure_flow_compiled.flow_slug, ensure_flow_compiled.shape);
    return jsonb_build_object('status', 'recompiled', 'differences', to_jsonb(v_diffs));
  end if;

  return jsonb_build_object('status', 'mismatch', 'differences', to_jsonb(v_diffs));
end;
$$;

comment on function pgflow.ensure_flow_compiled(text, jsonb, boolean) is
'Makes flow flow_slug match shape (the worker''s definition, see _get_flow_shape), under
pg_advisory_xact_lock(1, hashtext(flow_slug)). Returns {"status": s, "differences": [..]}:
compiled (flow was missing and is now created), verified (shapes equal), recompiled
(shapes differed and allow_data_loss or is_local(): the flow and ALL its runs were deleted
and recreated), mismatch (shapes differ; nothing changed, the worker must refuse to
start). Raises invalid_parameter_value, writing nothing, when shape is not a JSON object
with a "steps" array (pgflow-py; upstream compiles an empty flow). As upstream 0.14.1.';

-- ==================================================================== Performance (#6)
-- Batched completion (complete_tasks), read + start in one call (read_and_start_tasks),
-- a set-based start of ready steps over many runs (also start_flow's fast path), and
-- PL/pgSQL (plan-cached) bodies for helpers on hot paths.

-- ==== 095_function__send_messages.sql ====
-- _send_messages: send a batch of task messages to a flow queue.

create function pgflow._send_messages(queue_name text, msgs jsonb[], delay int)
returns setof bigint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- pgmq's send_batch(queue, msgs, delay int) is a SQL-language wrapper, parsed and
  -- planned again at every call; the PL/pgSQL overload it calls (headers, visible-at
  -- timestamp) keeps its plans, so it is called directly where this pgmq has it.
  if pg_catalog.to_regprocedure('pgmq.send_batch(text,jsonb[],jsonb[],timestamp with time zone)') is not null then
    return query
    select m.msg_id
    from pgmq.send_batch(_send_messages.queue_name, _send_messages.msgs, null::jsonb[],
                         pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => _send_messages.delay))
      as m (msg_id);
  else
    return query
    select m.msg_id
    from pgmq.send_batch(_send_messages.queue_name, _send_messages.msgs, _send_messages.delay)
      as m (msg_id);
  end if;
end;
$$;

comment on function pgflow._send_messages(text, jsonb[], int) is
'Sends msgs (jsonb[]) to pgmq queue queue_name, visible after delay seconds, and returns
their msg_ids in array order, as pgmq.send_batch(queue_name, msgs, delay) does; calls the
PL/pgSQL send_batch(queue_name, msgs, headers, timestamptz) directly when pgmq has it (the
integer-delay form is a SQL wrapper re-planned at every call). pgflow-py internal.';

-- ==== 100_function__dependency_outputs.sql ====
-- _dependency_outputs: the input of a dependent single step.

create or replace function pgflow._dependency_outputs(run_id uuid, flow_slug text, step_slug text)
returns jsonb
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL so the plan is cached per session (a SQL function with SET re-plans per call).
  return (
  select coalesce(jsonb_object_agg(d.dep_slug, ps.output), '{}'::jsonb)
  from pgflow.deps as d
  join pgflow.step_states as ps
    on ps.run_id = _dependency_outputs.run_id and ps.step_slug = d.dep_slug
  where d.flow_slug = _dependency_outputs.flow_slug
    and d.step_slug = _dependency_outputs.step_slug
    and ps.status = 'completed'
  );
end;
$$;

comment on function pgflow._dependency_outputs(uuid, text, text) is
'Returns {dep_slug: output} over the completed dependencies of step step_slug in run
run_id, reading the stored step_states.output (map outputs already aggregated). Skipped
dependencies are absent (not null); {} when none completed. Used for condition evaluation
and by start_tasks for dependent single steps.';

-- ==== 100_function__archive_task_message.sql ====
-- _archive_task_message: archive the pgmq message of one task.

create or replace function pgflow._archive_task_message(p_run_id uuid, p_step_slug text, p_task_index int)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL so the plan is cached per session (a SQL function with SET re-plans per call).
  perform pgmq.archive(t.flow_slug, t.message_id)
  from pgflow.step_tasks as t
  where t.run_id = p_run_id
    and t.step_slug = p_step_slug
    and t.task_index = p_task_index
    and t.message_id is not null;
end;
$$;

comment on function pgflow._archive_task_message(uuid, text, int) is
'Archives (moves to pgmq.a_<flow>) the message of task (p_run_id, p_step_slug,
p_task_index) if it has one and it is still in the queue; otherwise does nothing.
As upstream pgflow 0.14.1.';

-- ==== 130_function_start_ready_steps.sql ====
-- start_ready_steps: start every ready step of a run and queue its tasks.

create or replace function pgflow.start_ready_steps(run_id uuid)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_realtime boolean := pgflow._realtime_enabled();
  v_step record;
begin
  -- GUARD: nothing starts in a finished run.
  perform 1 from pgflow.runs as r where r.run_id = start_ready_steps.run_id and r.status = 'started';
  if not found then
    return;
  end if;

  -- MUTATE: ready steps (created, no pending deps, known non-zero task count) become
  -- started, in step_index order; taskless steps are left to the taskless cascade.
  for v_step in
    with ready as (
      select ss.step_slug
      from pgflow.step_states as ss
      where ss.run_id = start_ready_steps.run_id
        and ss.status = 'created'
        and ss.remaining_deps = 0
        and ss.initial_tasks > 0
      for update of ss
    ),
    started as (
      update pgflow.step_states as ss
      set status = 'started',
          started_at = now(),
          remaining_tasks = ss.initial_tasks
      from ready
      where ss.run_id = start_ready_steps.run_id and ss.step_slug = ready.step_slug
      returning ss.flow_slug, ss.step_slug, ss.initial_tasks, ss.remaining_deps, ss.started_at
    )
    select st.*, s.step_index, coalesce(s.opt_start_delay, 0) as start_delay
    from started as st
    join pgflow.steps as s on s.flow_slug = st.flow_slug and s.step_slug = st.step_slug
    order by s.step_index
  loop
    if v_realtime then
      perform pgflow._broadcast(start_ready_steps.run_id, 'step:' || v_step.step_slug || ':started',
        jsonb_build_object(
          'event_type', 'step:started',
          'run_id', start_ready_steps.run_id,
          'step_slug', v_step.step_slug,
          'status', 'started',
          'started_at', v_step.started_at,
          'remaining_tasks', v_step.initial_tasks,
          'remaining_deps', v_step.remaining_deps
        ));
    end if;

    -- One send_batch per step; message ids pair with task indices by position.
    insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, message_id)
    select v_step.flow_slug, start_ready_steps.run_id, v_step.step_slug, m.ord - 1, m.msg_id
    from pgflow._send_messages(
      v_step.flow_slug,
      array(
        select jsonb_build_object(
          'flow_slug', v_step.flow_slug,
          'run_id', start_ready_steps.run_id,
          'step_slug', v_step.step_slug,
          'task_index', i
        )
        from generate_series(0, v_step.initial_tasks - 1) as i
        order by i
      ),
      v_step.start_delay
    ) with ordinality as m (msg_id, ord);
  end loop;
end;
$$;

comment on function pgflow.start_ready_steps(uuid) is
'Starts every step of run run_id that is created, has no unfinished dependency and a known
task count > 0: status started, remaining_tasks = initial_tasks, one pgmq message per task
sent in one send_batch per step (delayed by the step''s start_delay seconds) and one
step_tasks row per task (status queued). Steps start in step_index order; broadcasts
step:started for each. No-op for a completed or failed run. Does not evaluate conditions
(callers run _cascade first). As upstream pgflow 0.14.1 start_ready_steps.';

-- ==== 135_function__start_ready_steps_of_runs.sql ====
-- _queue_step_tasks / _start_ready_steps_of_runs: start_ready_steps for many runs at once,
-- set-based.

create function pgflow._queue_step_tasks(
  flow_slug text,
  start_delay int,
  run_ids uuid[],
  step_slugs text[],
  task_counts int[]
)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
-- Planner settings for batch functions (README "Performance"): every statement is driven
-- by a batch of keys, so index nested loops are right at any table size, a cached generic
-- plan saves re-planning, and JIT compilation never pays off.
set enable_hashjoin = off
set enable_mergejoin = off
set jit = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_task_run_ids uuid[];
  v_task_step_slugs text[];
  v_task_indexes int[];
  v_msg_ids bigint[];
begin
  -- One send_batch per group; message ids pair with tasks by position.
  select array_agg(g.run_id order by g.ord, i), array_agg(g.step_slug order by g.ord, i),
         array_agg(i order by g.ord, i)
  into v_task_run_ids, v_task_step_slugs, v_task_indexes
  from unnest(_queue_step_tasks.run_ids, _queue_step_tasks.step_slugs, _queue_step_tasks.task_counts)
    with ordinality as g (run_id, step_slug, task_count, ord)
  cross join lateral generate_series(0, g.task_count - 1) as i;

  v_msg_ids := array(
    select m.msg_id
    from pgflow._send_messages(
      _queue_step_tasks.flow_slug,
      array(
        select jsonb_build_object(
          'flow_slug', _queue_step_tasks.flow_slug,
          'run_id', t.run_id,
          'step_slug', t.step_slug,
          'task_index', t.task_index
        )
        from unnest(v_task_run_ids, v_task_step_slugs, v_task_indexes)
          with ordinality as t (run_id, step_slug, task_index, ord)
        order by t.ord
      ),
      _queue_step_tasks.start_delay
    ) with ordinality as m (msg_id, ord)
    order by m.ord
  );

  insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, message_id)
  select _queue_step_tasks.flow_slug, t.run_id, t.step_slug, t.task_index, t.msg_id
  from unnest(v_task_run_ids, v_task_step_slugs, v_task_indexes, v_msg_ids)
    as t (run_id, step_slug, task_index, msg_id);
end;
$$;

comment on function pgflow._queue_step_tasks(text, int, uuid[], text[], int[]) is
'Queues the tasks of steps just started: for each i, task_counts[i] tasks (task_index 0..n-1)
of step step_slugs[i] of run run_ids[i], all of flow flow_slug: one pgmq message each, sent
in one send_batch delayed by start_delay seconds, in array order then task_index order,
and one step_tasks row each (status queued) paired with its message by position. The
callers have set the steps started. pgflow-py internal.';

create function pgflow._start_ready_steps_of_runs(run_ids uuid[])
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
-- Planner settings for batch functions (README "Performance"): every statement is driven
-- by a batch of keys, so index nested loops are right at any table size, a cached generic
-- plan saves re-planning, and JIT compilation never pays off.
set enable_hashjoin = off
set enable_mergejoin = off
set jit = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_group record;
begin
  -- MUTATE: ready steps (created, no pending deps, known non-zero task count) of started
  -- runs become started; their tasks are queued with one send_batch per flow and start
  -- delay, messages ordered by run, step_index and task_index.
  for v_group in
    with started as (
      -- No separate FOR UPDATE: the UPDATE locks the rows and re-checks them if a
      -- concurrent transaction changed them meanwhile; callers hold the run rows.
      update pgflow.step_states as ss
      set status = 'started',
          started_at = now(),
          remaining_tasks = ss.initial_tasks
      from pgflow.runs as r
      where ss.run_id = any(_start_ready_steps_of_runs.run_ids)
        and r.run_id = ss.run_id
        and r.status = 'started'
        and ss.status = 'created'
        and ss.remaining_deps = 0
        and ss.initial_tasks > 0
      returning ss.flow_slug, ss.run_id, ss.step_slug, ss.initial_tasks
    )
    select
      st.flow_slug,
      coalesce(s.opt_start_delay, 0) as start_delay,
      array_agg(st.run_id order by st.run_id, s.step_index) as run_ids,
      array_agg(st.step_slug order by st.run_id, s.step_index) as step_slugs,
      array_agg(st.initial_tasks order by st.run_id, s.step_index) as task_counts
    from started as st
    join pgflow.steps as s on s.flow_slug = st.flow_slug and s.step_slug = st.step_slug
    group by st.flow_slug, coalesce(s.opt_start_delay, 0)
  loop
    perform pgflow._queue_step_tasks(v_group.flow_slug, v_group.start_delay, v_group.run_ids,
                                     v_group.step_slugs, v_group.task_counts);
  end loop;
end;
$$;

comment on function pgflow._start_ready_steps_of_runs(uuid[]) is
'start_ready_steps for every run in run_ids (uuid[]) in a fixed number of statements:
each step that is created, has no unfinished dependency and a known task count > 0, in a
started run, becomes started (remaining_tasks = initial_tasks) and gets one step_tasks
row and one pgmq message per task; messages go out in one send_batch per flow and start
delay (seconds). Sends no broadcasts and evaluates no condition: callers use it only
while realtime is off, for runs whose flow has no conditions and no ready taskless step
(complete_tasks). pgflow-py internal.';

-- ==== 110_function_start_flow.sql ====
-- start_flow: create a run with its step states and start whatever is ready.

create or replace function pgflow.start_flow(
  flow_slug text,
  input jsonb,
  run_id uuid default null
)
returns setof pgflow.runs
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
-- Planner settings (README "Performance"): plans of these small lookups are cached as
-- generic plans once per session, and JIT compilation never pays off.
set jit = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_run pgflow.runs;
  v_root_map text;
  v_steps_count int;
  v_root_tasks int;
  v_realtime boolean;
  v_fast boolean;
  v_group record;
  v_has_conditions boolean;
begin
  -- VALIDATE: unknown flow, missing or oversized input, root maps without an array.
  perform 1 from pgflow.flows as f where f.flow_slug = start_flow.flow_slug;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', start_flow.flow_slug);
  end if;
  -- One pass over the flow's steps: count, first root map, any condition.
  select count(*)::int,
         (array_agg(s.step_slug order by s.step_index)
           filter (where s.step_type = 'map' and s.deps_count = 0))[1],
         coalesce(bool_or(s.required_input_pattern is not null or s.forbidden_input_pattern is not null), false)
  into v_steps_count, v_root_map, v_has_conditions
  from pgflow.steps as s
  where s.flow_slug = start_flow.flow_slug;
  if start_flow.input is null then
    raise exception using
      errcode = 'not_null_violation',
      message = case
        when v_root_map is not null then format('Flow %L has root map steps but input is NULL', start_flow.flow_slug)
        else format('Flow %L cannot start: input is NULL', start_flow.flow_slug)
      end,
      hint = 'Pass a JSON value, for example ''{}''::jsonb (a JSON array for flows with a root map step).';
  end if;
  if pg_catalog.pg_column_size(start_flow.input) > pgflow._max_payload_bytes() then
    perform pgflow._check_payload_size(start_flow.input, format('Input of flow %L', start_flow.flow_slug));
  end if;
  if v_root_map is not null and jsonb_typeof(start_flow.input) <> 'array' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Flow %L has root map steps but input is not an array (got %s)',
                       start_flow.flow_slug, jsonb_typeof(start_flow.input)),
      hint = format('Root map step %L maps over the run input, which must be a JSON array.', v_root_map);
  end if;
  if start_flow.run_id is not null
     and exists (select 1 from pgflow.runs as r where r.run_id = start_flow.run_id) then
    raise exception using
      errcode = 'unique_violation',
      message = format('Run %s already exists', start_flow.run_id);
  end if;

  -- MUTATE: the run and one step state per step. (The array length is computed apart:
  -- inside the CASE below the planner could fold it for a non-array input and raise.)
  if jsonb_typeof(start_flow.input) = 'array' then
    v_root_tasks := jsonb_array_length(start_flow.input);
  end if;
  -- Fast path, same outcome as the cascade below: without broadcasts, conditions or a
  -- root step without tasks (an empty root map), and with at least one step, the cascade
  -- only starts the root steps and cannot complete the run. Root steps are then inserted
  -- started and their tasks queued at once.
  v_realtime := pgflow._realtime_enabled();
  v_fast := not v_realtime
    and v_steps_count > 0
    and not (v_root_map is not null and coalesce(v_root_tasks, 0) = 0)
    and not v_has_conditions;

  -- The run and its step states in one statement.
  with new_run as (
    insert into pgflow.runs (run_id, flow_slug, input, remaining_steps)
    values (coalesce(start_flow.run_id, gen_random_uuid()), start_flow.flow_slug, start_flow.input,
            v_steps_count)
    returning *
  ),
  new_states as (
    insert into pgflow.step_states (
      flow_slug, run_id, step_slug, remaining_deps, initial_tasks, status, started_at, remaining_tasks
    )
    select
      st.flow_slug, nr.run_id, st.step_slug, st.deps_count, st.initial_tasks,
      case when st.starts then 'started' else 'created' end,
      case when st.starts then now() end,
      case when st.starts then st.initial_tasks end
    from new_run as nr
    cross join (
      select
        s.flow_slug,
        s.step_slug,
        s.deps_count,
        case
          when s.step_type = 'map' and s.deps_count = 0 then v_root_tasks
          when s.step_type = 'map' then null
          else 1
        end as initial_tasks,
        v_fast and s.deps_count = 0 as starts
      from pgflow.steps as s
      where s.flow_slug = start_flow.flow_slug
    ) as st
  )
  select nr.* into v_run from new_run as nr;

  if v_realtime then
    perform pgflow._broadcast(v_run.run_id, 'run:started', jsonb_build_object(
      'event_type', 'run:started',
      'run_id', v_run.run_id,
      'flow_slug', v_run.flow_slug,
      'input', v_run.input,
      'status', 'started',
      'remaining_steps', v_run.remaining_steps,
      'started_at', v_run.started_at
    ));
  end if;

  if v_fast then
    -- The root steps' tasks: one send per step (in step_index order), each message paired
    -- with its task by position, in one statement.
    for v_group in
      select
        s.step_slug,
        coalesce(s.opt_start_delay, 0) as start_delay,
        case when s.step_type = 'map' then v_root_tasks else 1 end as task_count
      from pgflow.steps as s
      where s.flow_slug = start_flow.flow_slug and s.deps_count = 0
      order by s.step_index
    loop
      insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, message_id)
      select start_flow.flow_slug, v_run.run_id, v_group.step_slug, (m.ord - 1)::int, m.msg_id
      from pgflow._send_messages(
        start_flow.flow_slug,
        array(
          select jsonb_build_object(
            'flow_slug', start_flow.flow_slug,
            'run_id', v_run.run_id,
            'step_slug', v_group.step_slug,
            'task_index', i
          )
          from generate_series(0, v_group.task_count - 1) as i
          order by i
        ),
        v_group.start_delay
      ) with ordinality as m (msg_id, ord);
    end loop;
  -- CASCADE: conditions, empty maps, ready steps, completion.
  elsif pgflow._cascade(v_run.run_id) then
    perform pgflow.start_ready_steps(v_run.run_id);
    perform pgflow.maybe_complete_run(v_run.run_id);
  end if;

  -- RETURN the run as it is now (it may already be completed or failed; on the fast path
  -- it is as inserted).
  if v_fast then
    return next v_run;
  else
    return query select r.* from pgflow.runs as r where r.run_id = v_run.run_id;
  end if;
end;
$$;

comment on function pgflow.start_flow(text, jsonb, uuid) is
'Starts a run of flow flow_slug with input (jsonb; a JSON array when the flow has a root map
step) and returns the runs row as it is after the initial cascade: root steps are queued,
conditions evaluated, empty maps completed, so the run may already be completed or failed.
run_id: optional caller-chosen uuid (random when NULL). Raises, writing nothing:
foreign_key_violation for an unknown flow; not_null_violation for a NULL input;
program_limit_exceeded when input is larger than pgflow.max_payload_bytes (default 16 MiB,
measured with pg_column_size; upstream has no limit); invalid_parameter_value when a root
map gets a non-array input (or the size setting is invalid); unique_violation when run_id
already exists. Broadcasts run:started when realtime.send exists.
As upstream pgflow 0.14.1 start_flow, stricter where noted.';

-- ==== 180_function_start_tasks.sql ====
-- start_tasks: second phase of two-phase polling. Claims the tasks behind messages a
-- worker has read and returns each task with its handler input. The work is done by
-- _start_tasks, shared with read_and_start_tasks.

create function pgflow._start_tasks(
  flow_slug text,
  msg_ids bigint[],
  worker_id uuid,
  extend_lease boolean
)
returns setof pgflow.step_task_record
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run_ids uuid[];
  v_step_slugs text[];
  v_task_indexes int[];
  v_message_ids bigint[];
  v_vt_offsets int[];
begin
  if msg_ids is null or cardinality(msg_ids) = 0 then
    return;
  end if;

  -- MUTATE: only queued tasks of started steps in started runs are claimed; anything
  -- else (duplicate delivery, late message of a failed run or skipped step) is ignored.
  with claimable as (
    select t.run_id, t.step_slug, t.task_index
    from pgflow.step_tasks as t
    join pgflow.runs as r on r.run_id = t.run_id
    join pgflow.step_states as ss on ss.run_id = t.run_id and ss.step_slug = t.step_slug
    where t.flow_slug = _start_tasks.flow_slug
      and t.message_id = any(_start_tasks.msg_ids)
      and t.status = 'queued'
      and r.status = 'started'
      and ss.status = 'started'
    order by t.message_id
    for update of t skip locked
  ),
  started as (
    update pgflow.step_tasks as t
    set status = 'started',
        attempts_count = t.attempts_count + 1,
        -- now() is the transaction's start: read_and_start_tasks may claim a task queued by
        -- a transaction that began after it (and committed before its read), and
        -- started_at must not precede queued_at.
        started_at = greatest(now(), t.queued_at),
        last_worker_id = _start_tasks.worker_id
    from claimable as c
    where t.run_id = c.run_id
      and t.step_slug = c.step_slug
      and t.task_index = c.task_index
      and t.status = 'queued'
    returning t.run_id, t.step_slug, t.task_index, t.message_id, t.flow_slug
  )
  select
    array_agg(st.run_id order by st.message_id),
    array_agg(st.step_slug order by st.message_id),
    array_agg(st.task_index order by st.message_id),
    array_agg(st.message_id order by st.message_id),
    array_agg(coalesce(s.opt_timeout, f.opt_timeout) + 2 order by st.message_id)
  into v_run_ids, v_step_slugs, v_task_indexes, v_message_ids, v_vt_offsets
  from started as st
  join pgflow.steps as s on s.flow_slug = st.flow_slug and s.step_slug = st.step_slug
  join pgflow.flows as f on f.flow_slug = st.flow_slug;

  if v_message_ids is null then
    return;
  end if;

  -- The lease: each claimed message stays invisible for the task's timeout + 2 seconds.
  -- Done in this call, before returning, so no reader can see the message meanwhile
  -- (unless the caller read the messages with that lease already).
  if extend_lease then
    perform pgflow.set_vt_batch(_start_tasks.flow_slug, v_message_ids, v_vt_offsets);
  end if;

  -- RETURN: each task with its input.
  return query
  select
    _start_tasks.flow_slug,
    c.run_id,
    c.step_slug,
    case
      when s.step_type = 'map' and s.deps_count = 0 then r.input -> c.task_index
      when s.step_type = 'map' then (
        select ps.output -> c.task_index
        from pgflow.deps as d
        join pgflow.step_states as ps on ps.run_id = c.run_id and ps.step_slug = d.dep_slug
        where d.flow_slug = s.flow_slug and d.step_slug = s.step_slug
      )
      when s.deps_count = 0 then '{}'::jsonb
      else pgflow._dependency_outputs(c.run_id, s.flow_slug, s.step_slug)
    end,
    c.message_id,
    c.task_index,
    case when s.step_type = 'single' and s.deps_count = 0 then r.input end
  from unnest(v_run_ids, v_step_slugs, v_task_indexes, v_message_ids)
    with ordinality as c (run_id, step_slug, task_index, message_id, ord)
  join pgflow.runs as r on r.run_id = c.run_id
  join pgflow.steps as s on s.flow_slug = _start_tasks.flow_slug and s.step_slug = c.step_slug
  order by c.ord;
end;
$$;

comment on function pgflow._start_tasks(text, bigint[], uuid, boolean) is
'The body of start_tasks (which see), shared with read_and_start_tasks: claims the tasks
behind messages msg_ids of flow flow_slug for worker worker_id and returns them with their
input. With extend_lease false the messages keep their visibility timeout (the caller
read them with the task timeout + 2 s already); with true it is set as start_tasks
documents.';

create or replace function pgflow.start_tasks(flow_slug text, msg_ids bigint[], worker_id uuid)
returns setof pgflow.step_task_record
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  return query select * from pgflow._start_tasks(start_tasks.flow_slug, start_tasks.msg_ids,
                                                  start_tasks.worker_id, true);
end;
$$;

comment on function pgflow.start_tasks(text, bigint[], uuid) is
'Claims the tasks of flow flow_slug whose pgmq messages msg_ids a worker has just read,
for worker worker_id (a pgflow.workers row). Only tasks that are queued, in a started step
of a started run are claimed: attempts_count + 1, status started, started_at now,
last_worker_id; others are silently ignored, so fewer records than ids may come back. In
the same call each claimed message''s visibility timeout becomes the step timeout (else
the flow timeout) + 2 seconds. Returns step_task_record rows: input is the run input
element (root map), the parent output element (dependent map), {dep_slug: output} over
completed dependencies (dependent single step) or {} (root single step, whose flow_input
carries the run input; NULL for every other kind). NULL or empty msg_ids return nothing.
As upstream pgflow 0.14.1 _start_tasks.';

-- ==== 195_function_complete_tasks.sql ====
-- complete_tasks: a worker reports many task outputs in one call (group commit).
--
-- Same outcome as calling complete_task for each item in array order, in one transaction
-- and with a fixed number of statements per call instead of per task: tasks, steps,
-- dependents and runs are updated set-based, messages archived once per flow. Items of a
-- run that needs complete_task's special handling (a non-array output for a step feeding
-- a map, which fails the run) go through complete_task itself, one by one; so do all
-- items while realtime broadcasts are enabled, whose events must come out in call order.

create function pgflow.complete_tasks(
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  outputs jsonb[]
)
returns table (run_id uuid, step_slug text, task_index int, status text)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
-- Planner settings for batch functions (README "Performance"): every statement is driven
-- by a batch of keys, so index nested loops are right at any table size, a cached generic
-- plan saves re-planning, and JIT compilation never pays off.
set enable_hashjoin = off
set enable_mergejoin = off
set jit = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_n int := coalesce(cardinality(complete_tasks.run_ids), 0);
  v_limit bigint;
  v_item record;
  v_slow_runs uuid[];
  v_done_run_ids uuid[];
  v_done_step_slugs text[];
  v_done_outputs jsonb[];
  v_flow record;
  v_steps_run_ids uuid[];
  v_steps_slugs text[];
  v_cascade_runs uuid[];
  v_plain_runs uuid[];
  v_settle_runs uuid[];
  v_run_id uuid;
begin
  -- VALIDATE: four arrays of one length, no NULL key, every output within the size limit
  -- (an oversized one raises for the whole call, which then writes nothing).
  if coalesce(cardinality(complete_tasks.step_slugs), 0) <> v_n
     or coalesce(cardinality(complete_tasks.task_indexes), 0) <> v_n
     or coalesce(cardinality(complete_tasks.outputs), 0) <> v_n then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('complete_tasks: run_ids, step_slugs, task_indexes and outputs must have '
                       'the same length (got %s, %s, %s and %s)',
                       v_n, coalesce(cardinality(complete_tasks.step_slugs), 0),
                       coalesce(cardinality(complete_tasks.task_indexes), 0),
                       coalesce(cardinality(complete_tasks.outputs), 0));
  end if;
  if v_n = 0 then
    return;
  end if;
  if array_position(complete_tasks.run_ids, null) is not null
     or array_position(complete_tasks.step_slugs, null) is not null
     or array_position(complete_tasks.task_indexes, null) is not null then
    raise exception using
      errcode = 'null_value_not_allowed',
      message = 'complete_tasks: run_ids, step_slugs and task_indexes may not contain NULL';
  end if;
  v_limit := pgflow._max_payload_bytes();
  for v_item in
    select u.run_id, u.step_slug, u.task_index, u.output
    from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
                complete_tasks.outputs) as u (run_id, step_slug, task_index, output)
    where pg_column_size(u.output) > v_limit
    limit 1
  loop
    perform pgflow._check_payload_size(v_item.output, format('Output of task %s[%s] of run %s',
      v_item.step_slug, v_item.task_index, v_item.run_id));
  end loop;

  -- LOCK: runs, then step_states, then step_tasks (the order of every transition), each in
  -- key order so that concurrent batches cannot deadlock.
  perform 1 from pgflow.runs as r
  where r.run_id = any(complete_tasks.run_ids)
  order by r.run_id
  for update;

  perform 1
  from pgflow.step_states as ss
  join unnest(complete_tasks.run_ids, complete_tasks.step_slugs) as k (run_id, step_slug)
    on ss.run_id = k.run_id and ss.step_slug = k.step_slug
  order by ss.run_id, ss.step_slug
  for update of ss;

  perform 1
  from pgflow.step_tasks as t
  join unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
    as k (run_id, step_slug, task_index)
    on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
  order by t.run_id, t.step_slug, t.task_index
  for update of t;

  -- Runs complete_task must take item by item: one where a single step that feeds a map
  -- step produced something other than an array (the run fails with TYPE_VIOLATION), and
  -- one with several items whose flow has conditions (a condition may fail the run after
  -- the first item, making the next ones no-ops).
  select array_agg(distinct u.run_id) into v_slow_runs
  from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
              complete_tasks.outputs) as u (run_id, step_slug, task_index, output)
  join pgflow.runs as r on r.run_id = u.run_id
  join pgflow.steps as s on s.flow_slug = r.flow_slug and s.step_slug = u.step_slug
  where (
      s.step_type = 'single'
      and jsonb_typeof(u.output) is distinct from 'array'
      and exists (
        select 1
        from pgflow.deps as d
        join pgflow.steps as cs on cs.flow_slug = d.flow_slug and cs.step_slug = d.step_slug
        where d.flow_slug = s.flow_slug and d.dep_slug = s.step_slug and cs.step_type = 'map'
      )
    )
    or (
      exists (
        select 1 from pgflow.steps as cs
        where cs.flow_slug = r.flow_slug
          and (cs.required_input_pattern is not null or cs.forbidden_input_pattern is not null)
      )
      and exists (
        select 1
        from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
          as o (run_id, step_slug, task_index)
        where o.run_id = u.run_id and (o.step_slug, o.task_index) <> (u.step_slug, u.task_index)
      )
    );
  v_slow_runs := coalesce(v_slow_runs, '{}'::uuid[]);
  -- Realtime on: every run item by item, so events keep their per-call order.
  if pgflow._realtime_enabled() then
    v_slow_runs := array(select distinct u.run_id from unnest(complete_tasks.run_ids) as u (run_id));
  end if;

  -- MUTATE 1: tasks. Completed only when the run has not failed, the step is started and
  -- the task is started (a repeated item completes once, with its first output).
  with items as (
    select distinct on (u.run_id, u.step_slug, u.task_index)
      u.run_id, u.step_slug, u.task_index, u.output
    from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
                complete_tasks.outputs) with ordinality as u (run_id, step_slug, task_index, output, ord)
    where u.run_id <> all(v_slow_runs)
    order by u.run_id, u.step_slug, u.task_index, u.ord
  ),
  done as (
    update pgflow.step_tasks as t
    set status = 'completed',
        completed_at = now(),
        output = i.output
    from items as i, pgflow.runs as r, pgflow.step_states as ss
    where t.run_id = i.run_id and t.step_slug = i.step_slug and t.task_index = i.task_index
      and t.status = 'started'
      and r.run_id = i.run_id and r.status <> 'failed'
      and ss.run_id = i.run_id and ss.step_slug = i.step_slug and ss.status = 'started'
    returning t.run_id, t.step_slug, t.output
  )
  select array_agg(d.run_id), array_agg(d.step_slug), array_agg(d.output)
  into v_done_run_ids, v_done_step_slugs, v_done_outputs
  from done as d;

  -- MUTATE 2: the messages of completed tasks, and of tasks whose step is no longer started
  -- (late reports after a skip or failure), go to the archive: one call per flow.
  for v_flow in
    select t.flow_slug, array_agg(t.message_id order by t.message_id) as msg_ids
    from (
      select distinct u.run_id, u.step_slug, u.task_index
      from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
        as u (run_id, step_slug, task_index)
      where u.run_id <> all(v_slow_runs)
    ) as k
    join pgflow.step_tasks as t
      on t.run_id = k.run_id and t.step_slug = k.step_slug and t.task_index = k.task_index
    join pgflow.runs as r on r.run_id = k.run_id
    join pgflow.step_states as ss on ss.run_id = k.run_id and ss.step_slug = k.step_slug
    where t.message_id is not null
      and r.status <> 'failed'
      and (ss.status <> 'started' or t.status = 'completed')
    group by t.flow_slug
  loop
    perform pgmq.archive(v_flow.flow_slug, v_flow.msg_ids);
  end loop;

  if v_done_run_ids is not null then
    -- MUTATE 3: steps. Each loses its completed tasks; the last one completes it with its
    -- output (a single step: the task output; a map: the task outputs in task_index order).
    with per_step as (
      select d.run_id, d.step_slug, count(*)::int as n, (array_agg(d.output))[1] as output
      from unnest(v_done_run_ids, v_done_step_slugs, v_done_outputs) as d (run_id, step_slug, output)
      group by d.run_id, d.step_slug
    ),
    completed as (
      update pgflow.step_states as ss
      set remaining_tasks = ss.remaining_tasks - p.n,
          status = case when ss.remaining_tasks = p.n then 'completed' else ss.status end,
          completed_at = case when ss.remaining_tasks = p.n then now() end,
          output = case
            when ss.remaining_tasks <> p.n then null
            when s.step_type = 'map' then (
              select jsonb_agg(t.output order by t.task_index)
              from pgflow.step_tasks as t
              where t.run_id = ss.run_id and t.step_slug = ss.step_slug
            )
            else p.output
          end
      from per_step as p, pgflow.steps as s
      where ss.run_id = p.run_id and ss.step_slug = p.step_slug
        and s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
      returning ss.run_id, ss.step_slug, ss.status
    )
    select array_agg(c.run_id), array_agg(c.step_slug)
    into v_steps_run_ids, v_steps_slugs
    from completed as c
    where c.status = 'completed';
  end if;

  if v_steps_run_ids is not null then
    -- MUTATE 4: dependents of completed steps lose those pending parents; a dependent map
    -- learns its task count (parent map: its task count; single parent: its array length).
    with parents as (
      select ss.run_id, ss.flow_slug, ss.step_slug, ss.initial_tasks, ss.output, s.step_type
      from unnest(v_steps_run_ids, v_steps_slugs) as c (run_id, step_slug)
      join pgflow.step_states as ss on ss.run_id = c.run_id and ss.step_slug = c.step_slug
      join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
    ),
    edges as (
      select p.run_id, p.flow_slug, d.step_slug as child_slug, count(*)::int as n,
        max(case
          when p.step_type = 'map' then p.initial_tasks
          when jsonb_typeof(p.output) = 'array' then jsonb_array_length(p.output)
        end) as parent_tasks
      from parents as p
      join pgflow.deps as d on d.flow_slug = p.flow_slug and d.dep_slug = p.step_slug
      group by p.run_id, p.flow_slug, d.step_slug
    ),
    released as (
      update pgflow.step_states as ss
      set remaining_deps = ss.remaining_deps - e.n,
          initial_tasks = case
            when cs.step_type = 'map' and ss.initial_tasks is null then e.parent_tasks
            else ss.initial_tasks
          end
      from edges as e, pgflow.steps as cs
      where ss.run_id = e.run_id and ss.step_slug = e.child_slug and ss.status = 'created'
        and cs.flow_slug = e.flow_slug and cs.step_slug = e.child_slug
      returning ss.run_id
    )
    select array_agg(distinct rl.run_id order by rl.run_id) into v_cascade_runs from released as rl;

    -- MUTATE 5: runs lose their completed steps in one statement; a run left with none
    -- (it released no dependent) completes in it, with its completed leaf steps as output.
    with per_run as (
      select c.run_id, count(*)::int as n
      from unnest(v_steps_run_ids) as c (run_id)
      group by c.run_id
    )
    update pgflow.runs as r
    set remaining_steps = r.remaining_steps - p.n,
        status = case when r.remaining_steps = p.n and r.status = 'started' then 'completed' else r.status end,
        completed_at = case when r.remaining_steps = p.n and r.status = 'started' then now() else r.completed_at end,
        output = case
          when r.remaining_steps = p.n and r.status = 'started' then (
            select jsonb_object_agg(ss.step_slug, ss.output)
            from pgflow.step_states as ss
            where ss.run_id = r.run_id
              and ss.status = 'completed'
              and not exists (
                select 1 from pgflow.deps as d
                where d.flow_slug = ss.flow_slug and d.dep_slug = ss.step_slug
              )
          )
          else r.output
        end
    from per_run as p
    where r.run_id = p.run_id;

    if v_cascade_runs is not null then
      -- CASCADE: runs with released dependents. Plain ones (no condition in the flow, no
      -- ready step without tasks) only start what is ready, all together; the others
      -- settle run by run (conditions, empty maps) as after a single complete_task.
      select array_agg(k.run_id order by k.run_id) filter (where k.plain),
             array_agg(k.run_id order by k.run_id) filter (where not k.plain)
      into v_plain_runs, v_settle_runs
      from (
        select c.run_id,
          not exists (
            select 1 from pgflow.steps as s
            where s.flow_slug = r.flow_slug
              and (s.required_input_pattern is not null or s.forbidden_input_pattern is not null)
          )
          and not exists (
            select 1 from pgflow.step_states as ss
            where ss.run_id = c.run_id and ss.status = 'created' and ss.remaining_deps = 0
              and not coalesce(ss.initial_tasks > 0, false)
          ) as plain
        from unnest(v_cascade_runs) as c (run_id)
        join pgflow.runs as r on r.run_id = c.run_id
      ) as k;

      if v_plain_runs is not null then
        perform pgflow._start_ready_steps_of_runs(v_plain_runs);
      end if;
      foreach v_run_id in array coalesce(v_settle_runs, '{}'::uuid[]) loop
        if pgflow._cascade(v_run_id) then
          perform pgflow.start_ready_steps(v_run_id);
          perform pgflow.maybe_complete_run(v_run_id);
        end if;
      end loop;
    end if;
  end if;

  -- Runs set aside above: complete_task, item by item in array order (locks already held).
  if cardinality(v_slow_runs) > 0 then
    for v_item in
      select u.run_id, u.step_slug, u.task_index, u.output
      from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes,
                  complete_tasks.outputs) with ordinality as u (run_id, step_slug, task_index, output, ord)
      where u.run_id = any(v_slow_runs)
      order by u.ord
    loop
      perform pgflow.complete_task(v_item.run_id, v_item.step_slug, v_item.task_index, v_item.output);
    end loop;
  end if;

  -- RETURN: one row per item naming an existing task, in array order, as it is now.
  return query
  select t.run_id, t.step_slug, t.task_index, t.status
  from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
    with ordinality as u (run_id, step_slug, task_index, ord)
  join pgflow.step_tasks as t
    on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
  order by u.ord;
end;
$$;

comment on function pgflow.complete_tasks(uuid[], text[], int[], jsonb[]) is
'Batch form of complete_task for group commit: item i is task (run_ids[i], step_slugs[i],
task_indexes[i]) with output outputs[i] (jsonb, stored as given). The outcome is that of
calling complete_task for each item in array order within one transaction, guards
included (a failed run, a step no longer started or a task not started change nothing
but the archive, exactly as there; a task named twice completes once, with its first
output), with a fixed number of statements per call: tasks, steps, dependents and runs
are updated set-based and messages archived with one pgmq.archive per flow. Locks runs,
then step_states, then step_tasks, each in key order. Items of a run in which a single
step feeding a map produced a non-array go through complete_task one by one (it fails
the run with TYPE_VIOLATION), and so does every item while realtime.send exists, so
broadcasts keep their order. Returns (run_id, step_slug, task_index, status) for each item
naming an existing task, in array order, with the status after the call; unknown tasks
are left out. Raises invalid_parameter_value for arrays of different lengths,
null_value_not_allowed for a NULL key, and program_limit_exceeded when any output is
larger than pgflow.max_payload_bytes (default 16 MiB): the whole call then changes
nothing (report those tasks with complete_task / fail_task). Empty arrays return nothing.
pgflow-py extension (upstream workers call complete_task once per task).';

-- ==== 282_function_read_and_start_tasks.sql ====
-- read_and_start_tasks: both phases of two-phase polling in one call (one round trip).

create function pgflow.read_and_start_tasks(
  flow_slug text,
  worker_id uuid,
  qty int,
  visibility_timeout int,
  step_slugs text[] default null
)
returns table (
  msg_id bigint,
  read_ct int,
  enqueued_at timestamptz,
  vt timestamptz,
  message jsonb,
  headers jsonb,
  run_id uuid,
  step_slug text,
  task_index int,
  input jsonb,
  flow_input jsonb,
  attempts_count int
)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
-- Planner settings for batch functions (README "Performance"): every statement is driven
-- by a batch of keys, so index nested loops are right at any table size, a cached generic
-- plan saves re-planning, and JIT compilation never pays off.
set enable_hashjoin = off
set enable_mergejoin = off
set jit = off
set plan_cache_mode = force_generic_plan
as $$
declare
  v_msg_ids bigint[];
  v_read_cts int[];
  v_enqueued_ats timestamptz[];
  v_vts timestamptz[];
  v_messages jsonb[];
  v_headers jsonb[];
  v_claim bigint[];
  v_run_ids uuid[];
  v_step_slugs text[];
  v_task_indexes int[];
  v_inputs jsonb[];
  v_flow_inputs jsonb[];
  v_started_ids bigint[];
  v_handles_all boolean;
  v_min_timeout int;
  v_max_timeout int;
  v_lease int;
  v_extend boolean;
begin
  -- VALIDATE: the arguments read_tasks does not see (it checks the flow and qty).
  if read_and_start_tasks.visibility_timeout is null or read_and_start_tasks.visibility_timeout < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('visibility_timeout must be a non-negative number of seconds (got %s)',
                       coalesce(read_and_start_tasks.visibility_timeout::text, 'NULL'));
  end if;
  if read_and_start_tasks.worker_id is null then
    raise exception using
      errcode = 'null_value_not_allowed',
      message = 'worker_id may not be NULL';
  end if;

  -- LEASE: a caller that handles every step of a flow whose steps share one timeout claims
  -- every task it reads, so messages are read with the claim's lease (timeout + 2 s) at
  -- once; otherwise with visibility_timeout, and claimed ones are extended afterwards.
  select bool_and(read_and_start_tasks.step_slugs is null or s.step_slug = any(read_and_start_tasks.step_slugs)),
         min(coalesce(s.opt_timeout, f.opt_timeout)), max(coalesce(s.opt_timeout, f.opt_timeout))
  into v_handles_all, v_min_timeout, v_max_timeout
  from pgflow.steps as s
  join pgflow.flows as f on f.flow_slug = s.flow_slug
  where s.flow_slug = read_and_start_tasks.flow_slug;
  v_extend := not coalesce(v_handles_all and v_min_timeout = v_max_timeout, false);
  v_lease := case when v_extend then read_and_start_tasks.visibility_timeout else v_min_timeout + 2 end;

  -- READ: reserve up to qty visible messages for the lease.
  select array_agg(m.msg_id order by m.msg_id), array_agg(m.read_ct order by m.msg_id),
         array_agg(m.enqueued_at order by m.msg_id), array_agg(m.vt order by m.msg_id),
         array_agg(m.message order by m.msg_id), array_agg(m.headers order by m.msg_id)
  into v_msg_ids, v_read_cts, v_enqueued_ats, v_vts, v_messages, v_headers
  from pgflow.read_tasks(read_and_start_tasks.flow_slug, v_lease, read_and_start_tasks.qty) as m;
  if v_msg_ids is null then
    return;
  end if;

  -- START: claim the tasks behind the messages for steps the caller handles (all when
  -- step_slugs is NULL); the others stay reserved for the lease, then reappear for other
  -- workers.
  v_claim := array(
    select m.msg_id
    from unnest(v_msg_ids, v_messages) as m (msg_id, message)
    where read_and_start_tasks.step_slugs is null
       or (m.message ->> 'step_slug') = any(read_and_start_tasks.step_slugs)
  );
  select array_agg(st.msg_id), array_agg(st.run_id), array_agg(st.step_slug),
         array_agg(st.task_index), array_agg(st.input), array_agg(st.flow_input)
  into v_started_ids, v_run_ids, v_step_slugs, v_task_indexes, v_inputs, v_flow_inputs
  from pgflow._start_tasks(read_and_start_tasks.flow_slug, v_claim, read_and_start_tasks.worker_id,
                           v_extend) as st;

  -- RETURN: every message read, with its task when it was claimed (attempts_count as
  -- incremented by start_tasks, read in this later statement).
  return query
  select m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers,
         st.run_id, st.step_slug, st.task_index, st.input, st.flow_input, t.attempts_count
  from unnest(v_msg_ids, v_read_cts, v_enqueued_ats, v_vts, v_messages, v_headers)
    as m (msg_id, read_ct, enqueued_at, vt, message, headers)
  left join unnest(v_started_ids, v_run_ids, v_step_slugs, v_task_indexes, v_inputs, v_flow_inputs)
    as st (msg_id, run_id, step_slug, task_index, input, flow_input)
    on st.msg_id = m.msg_id
  left join pgflow.step_tasks as t
    on t.run_id = st.run_id and t.step_slug = st.step_slug and t.task_index = st.task_index
  order by m.msg_id;
end;
$$;

comment on function pgflow.read_and_start_tasks(text, uuid, int, int, text[]) is
'read_tasks then start_tasks in one call and one transaction: reserves up to qty visible
messages of the queue of flow flow_slug, claims for worker worker_id the tasks behind
those whose step is in step_slugs (every step when NULL), and returns one row per message
read, in msg_id order: msg_id, read_ct, enqueued_at, vt (as read), message, headers (the
columns of pgmq.message_record), then the claimed task''s run_id, step_slug, task_index,
input and flow_input (as start_tasks returns them) and attempts_count after the claim.
The task columns are NULL for a message not claimed: a step not in step_slugs, or a task
start_tasks ignores (duplicate or late delivery). Lease: when step_slugs covers every step
of the flow and the steps share one effective timeout, messages are read with that
timeout + 2 seconds (the lease start_tasks gives, in one update); otherwise they are read
for visibility_timeout seconds (the time an unclaimed message stays hidden) and claimed
ones are then extended to their step timeout + 2 s. qty in messages, visibility_timeout
in seconds. Raises foreign_key_violation for an unknown flow, invalid_parameter_value for
a NULL or negative visibility_timeout or qty, null_value_not_allowed for a NULL
worker_id. SECURITY DEFINER: for workers with the pgflow_worker role. pgflow-py
extension (upstream workers call pgmq.read_with_poll and start_tasks in two round trips).';

-- ==================================================================== Security (#5)
-- Roles pgflow_worker and pgflow_client, SECURITY DEFINER worker/client functions, every
-- function's search_path pinned to pg_catalog, pg_temp, nothing for PUBLIC. Keep this
-- section LAST: pgflow.setup_security() must run after every CREATE OR REPLACE FUNCTION
-- of this script, which resets SECURITY DEFINER and search_path of the function replaced.

comment on function pgflow.get_run_with_states(uuid) is
'Returns {"run": <runs row>, "steps": [<step_states rows in step_index order>]} for run
run_id (steps [] when none), or NULL when the run does not exist. SECURITY DEFINER with a
pinned search_path. As upstream pgflow 0.14.1.';

comment on function pgflow.start_flow_with_states(text, jsonb, uuid) is
'Starts a run like start_flow(flow_slug, input, run_id) and returns get_run_with_states of
the new run. Raises what start_flow raises. SECURITY DEFINER with a pinned search_path.
As upstream pgflow 0.14.1.';

-- Changed: broadcasts only through a realtime.send of a trusted owner.
create or replace function pgflow._realtime_enabled()
returns boolean
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL, not SQL: a SQL function with SET is never inlined and re-plans its query at
  -- every call, and hot paths call this once per transition.
  -- Usually there is no realtime.send at all: a syscache lookup answers that.
  if pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)') is null then
    return false;
  end if;
  -- Only a function of a trusted owner: pgflow functions running as their owner call it.
  return exists (
    select 1
    from pg_catalog.pg_proc as p
    join pg_catalog.pg_roles as a on a.oid = p.proowner
    where p.oid = pg_catalog.to_regprocedure('realtime.send(jsonb,text,text,boolean)')
      and (a.rolsuper
           or p.proowner = (select n.nspowner from pg_catalog.pg_namespace as n where n.nspname = 'pgflow'))
  );
end;
$$;

comment on function pgflow._realtime_enabled() is
'True when a function realtime.send(payload jsonb, event text, topic text, private boolean)
exists (Supabase Realtime or a stand-in) and is owned by a superuser or by the owner of
schema pgflow. Without it pgflow emits no broadcasts. The owner check matters because
broadcasts are sent from SECURITY DEFINER functions: a realtime.send created by any other
role (one that may create schemas) would run with the rights of pgflow''s owner.
pgflow-py: upstream calls realtime.send unconditionally.';

-- ==== 280_function_read_tasks.sql ====
-- read_tasks: first phase of two-phase polling, for workers without pgmq privileges.

create function pgflow.read_tasks(flow_slug text, vt int, qty int)
returns setof pgmq.message_record
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  -- VALIDATE: only the queue of an existing flow is read, so the text argument never
  -- names another pgmq queue (pgmq.read also quotes it through format_table_name).
  if not exists (select 1 from pgflow.flows as f where f.flow_slug = read_tasks.flow_slug) then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', read_tasks.flow_slug);
  end if;
  if read_tasks.vt is null or read_tasks.vt < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('vt must be a non-negative number of seconds (got %s)', coalesce(read_tasks.vt::text, 'NULL'));
  end if;
  if read_tasks.qty is null or read_tasks.qty < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('qty must be a non-negative number of messages (got %s)', coalesce(read_tasks.qty::text, 'NULL'));
  end if;

  return query select * from pgmq.read(read_tasks.flow_slug, read_tasks.vt, read_tasks.qty);
end;
$$;

comment on function pgflow.read_tasks(text, int, int) is
'Reserves up to qty visible task messages of the queue of flow flow_slug for vt seconds
(pgmq.read) and returns them as pgmq.message_record rows (msg_id, read_ct, enqueued_at, vt,
message, headers); pass their msg_ids to start_tasks. The first phase of two-phase polling
for workers that hold the pgflow_worker role and no pgmq privileges (SECURITY DEFINER).
Raises foreign_key_violation for an unknown flow (no other queue can be read) and
invalid_parameter_value for a NULL or negative vt or qty. pgflow-py extension: upstream
workers call pgmq.read_with_poll directly.';

-- ==== 285_function_enable_flow_notify.sql ====
-- enable_flow_notify: pgmq's NOTIFY-on-insert for a flow queue, for workers without
-- pgmq privileges.

create function pgflow.enable_flow_notify(flow_slug text, throttle_ms int default 250)
returns boolean
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
  -- VALIDATE
  if not exists (select 1 from pgflow.flows as f where f.flow_slug = enable_flow_notify.flow_slug) then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', enable_flow_notify.flow_slug);
  end if;
  if enable_flow_notify.throttle_ms is null or enable_flow_notify.throttle_ms < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('throttle_ms must be a non-negative number of milliseconds (got %s)',
                       coalesce(enable_flow_notify.throttle_ms::text, 'NULL'));
  end if;
  if pg_catalog.to_regclass('pgmq.notify_insert_throttle') is null then
    raise exception using
      errcode = 'feature_not_supported',
      message = 'this pgmq has no NOTIFY on insert (pgmq.notify_insert_throttle is missing)',
      hint = 'Upgrade pgmq; workers poll meanwhile.';
  end if;

  -- GUARD: workers starting together are serialised; the first one enables, the others
  -- find the throttle row and change nothing (the throttle of the first one is kept).
  perform pg_catalog.pg_advisory_xact_lock(4, pg_catalog.hashtext(enable_flow_notify.flow_slug));
  if exists (
    select 1 from pgmq.notify_insert_throttle as t where t.queue_name = enable_flow_notify.flow_slug
  ) then
    return false;
  end if;

  -- MUTATE
  perform pgmq.enable_notify_insert(enable_flow_notify.flow_slug, enable_flow_notify.throttle_ms);
  return true;
end;
$$;

comment on function pgflow.enable_flow_notify(text, int) is
'Enables pgmq''s NOTIFY on insert (pgmq.enable_notify_insert: a deferrable trigger sending
pgmq.q_<queue>.INSERT, at most one notification per throttle_ms milliseconds, default 250)
on the queue of flow flow_slug unless it already is. Returns true when this call enabled it,
false when it was already enabled (the existing throttle is kept). Concurrent calls for one
flow are serialised by pg_advisory_xact_lock(4, hashtext(flow_slug)). Called by workers at
start; SECURITY DEFINER so that the pgflow_worker role needs no pgmq privileges. Raises
foreign_key_violation for an unknown flow, invalid_parameter_value for a NULL or negative
throttle_ms and feature_not_supported when pgmq has no NOTIFY support. pgflow-py extension.';

-- ==== 900_security.sql ====
-- Security: roles, privileges, SECURITY DEFINER and pinned search paths. Loaded last.
--
-- Everything lives in one idempotent function, pgflow.setup_security(), called at the end
-- of the install script and at the end of every upgrade script (CREATE OR REPLACE
-- FUNCTION resets SECURITY DEFINER and SET search_path, so an upgrade that replaces a
-- function must call it again afterwards). An administrator calls it again after creating
-- the roles by hand when the installing role could not (no CREATEROLE).
--
-- The model (README "Security", compat/UPSTREAM.md "Deliberate differences"):
-- - PUBLIC gets nothing in schema pgflow (the schema holds engine state).
-- - pgflow_worker (NOLOGIN group role): reads task messages and reports outcomes through
--   functions; pgflow_client: starts runs. Both may read definitions and run state; neither
--   may write a table: every function they may call that writes is SECURITY DEFINER.
-- - Every function runs with search_path = pg_catalog, pg_temp: pg_catalog first, and the
--   session's temporary schema last. An empty search_path is not enough: the temporary
--   schema is then searched *first* for type names, so a caller could shadow jsonb or text
--   with a pg_temp domain whose CHECK runs its own function as the function owner.

create or replace function pgflow.setup_security()
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_routine text;
  v_role text;
  v_granted text[] := '{}'::text[];
begin
  -- 1. Pin the search path of every routine of the schema (see the header).
  for v_routine in
    select p.oid::pg_catalog.regprocedure::text
    from pg_catalog.pg_proc as p
    where p.pronamespace = 'pgflow'::pg_catalog.regnamespace and p.prokind in ('f', 'p')
    order by 1
  loop
    execute format('alter routine %s set search_path = pg_catalog, pg_temp', v_routine);
  end loop;

  -- 2. Functions the roles call that write run as their owner, so the roles need no table
  --    privilege. (Already SECURITY DEFINER in their own files: get_run_with_states,
  --    start_flow_with_states, recover_stalled_tasks, requeue_stalled_tasks,
  --    setup_requeue_stalled_tasks_cron, prune_data_older_than, schedule_flow,
  --    unschedule_flow, sync_flow_schedule, read_tasks, read_and_start_tasks,
  --    enable_flow_notify.)
  alter function pgflow.start_flow(text, jsonb, uuid) security definer;
  alter function pgflow.start_tasks(text, bigint[], uuid) security definer;
  alter function pgflow.complete_task(uuid, text, int, jsonb) security definer;
  alter function pgflow.complete_tasks(uuid[], text[], int[], jsonb[]) security definer;
  alter function pgflow.fail_task(uuid, text, int, text) security definer;
  alter function pgflow.ensure_flow_compiled(text, jsonb, boolean) security definer;
  alter function pgflow.register_worker(uuid, text, text) security definer;
  alter function pgflow.worker_heartbeat(uuid) security definer;
  alter function pgflow.deprecate_worker(uuid) security definer;
  alter function pgflow.mark_worker_stopped(uuid) security definer;
  alter function pgflow.track_worker_function(text) security definer;

  -- 3. Nothing for PUBLIC (functions are executable by PUBLIC by default).
  revoke all on schema pgflow from public;
  revoke all on all tables in schema pgflow from public;
  revoke all on all sequences in schema pgflow from public;
  revoke all on all routines in schema pgflow from public;

  -- 4. The group roles, when absent and this role may create them. Roles are cluster-wide:
  --    other databases of the cluster share them.
  foreach v_role in array array['pgflow_worker', 'pgflow_client'] loop
    if pg_catalog.to_regrole(v_role) is null then
      begin
        execute format('create role %I nologin', v_role);
      exception
        when duplicate_object or unique_violation then
          null;  -- created meanwhile by an install into another database
        when insufficient_privilege then
          raise notice using
            message = format('pgflow: role %s does not exist and %s may not create it; '
                             'it gets no privileges', v_role, current_user),
            hint = format('As an administrator: CREATE ROLE %s NOLOGIN; then, as the owner of '
                          'schema pgflow: SELECT pgflow.setup_security();', v_role);
      end;
    end if;
  end loop;

  -- 5. Grants, from scratch (a version that grants less also revokes the rest).
  if pg_catalog.to_regrole('pgflow_worker') is not null then
    revoke all on all tables in schema pgflow from pgflow_worker;
    revoke all on all routines in schema pgflow from pgflow_worker;
    grant usage on schema pgflow to pgflow_worker;
    grant select on pgflow.installed_versions, pgflow.flows, pgflow.steps, pgflow.deps,
      pgflow.runs, pgflow.step_states, pgflow.step_tasks, pgflow.permanently_stalled_tasks
      to pgflow_worker;
    grant execute on function
      pgflow.version(),
      pgflow.ensure_flow_compiled(text, jsonb, boolean),
      pgflow.track_worker_function(text),
      pgflow.register_worker(uuid, text, text),
      pgflow.sync_flow_schedule(text, text, jsonb),
      pgflow.enable_flow_notify(text, int),
      pgflow.read_tasks(text, int, int),
      pgflow.read_and_start_tasks(text, uuid, int, int, text[]),
      pgflow.start_tasks(text, bigint[], uuid),
      pgflow.complete_task(uuid, text, int, jsonb),
      pgflow.complete_tasks(uuid[], text[], int[], jsonb[]),
      pgflow.fail_task(uuid, text, int, text),
      pgflow.worker_heartbeat(uuid),
      pgflow.recover_stalled_tasks(),
      pgflow.requeue_stalled_tasks(),
      pgflow.deprecate_worker(uuid),
      pgflow.mark_worker_stopped(uuid)
      to pgflow_worker;
    v_granted := v_granted || 'pgflow_worker'::text;
  end if;

  if pg_catalog.to_regrole('pgflow_client') is not null then
    revoke all on all tables in schema pgflow from pgflow_client;
    revoke all on all routines in schema pgflow from pgflow_client;
    grant usage on schema pgflow to pgflow_client;
    grant select on pgflow.installed_versions, pgflow.flows, pgflow.steps, pgflow.deps,
      pgflow.runs, pgflow.step_states, pgflow.step_tasks, pgflow.permanently_stalled_tasks
      to pgflow_client;
    grant execute on function
      pgflow.version(),
      pgflow.start_flow(text, jsonb, uuid),
      pgflow.start_flow_with_states(text, jsonb, uuid),
      pgflow.get_run_with_states(uuid)
      to pgflow_client;
    v_granted := v_granted || 'pgflow_client'::text;
  end if;

  return v_granted;
end;
$$;

comment on function pgflow.setup_security() is
'Applies pgflow''s privilege model to schema pgflow; idempotent. Pins search_path =
pg_catalog, pg_temp on every function; makes the worker- and client-facing functions that
write SECURITY DEFINER; revokes everything in the schema from PUBLIC; creates the NOLOGIN
group roles pgflow_worker and pgflow_client when absent (without CREATEROLE: a NOTICE per
role, and that role gets nothing); then grants each existing role exactly its privileges.
pgflow_worker: USAGE on the schema, SELECT on installed_versions, flows, steps, deps, runs,
step_states, step_tasks and permanently_stalled_tasks, EXECUTE on version,
ensure_flow_compiled, track_worker_function, register_worker, sync_flow_schedule,
enable_flow_notify, read_tasks, read_and_start_tasks, start_tasks, complete_task,
complete_tasks, fail_task, worker_heartbeat,
recover_stalled_tasks, requeue_stalled_tasks, deprecate_worker and mark_worker_stopped.
pgflow_client: the same USAGE and SELECT, EXECUTE on version, start_flow,
start_flow_with_states and get_run_with_states. Returns the roles that got their grants.
Run by the install and upgrade scripts; run it again (as the schema owner) after creating
a missing role. Executable by the owner only. pgflow-py extension.';

select pgflow.setup_security();
