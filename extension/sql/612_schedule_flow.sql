-- schedule_flow: creates or replaces schedule schedule_name (default: the flow slug): a row in
-- pgflow.schedules and the pg_cron job pgflow_schedule:<schedule_name> that starts flow
-- flow_slug with input (jsonb; an array for flows with a root map) on schedule (a cron
-- expression; pg_cron >= 1.5 also takes 'N seconds').

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
  v_now timestamptz := pgflow._now();
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
  insert into pgflow.schedules (schedule_name, flow_slug, schedule, input, job_id, created_at, updated_at)
  values (v_name, schedule_flow.flow_slug, schedule_flow.schedule, schedule_flow.input, v_job_id,
          v_now, v_now)
  on conflict on constraint schedules_pkey do update
    set flow_slug = excluded.flow_slug,
        schedule = excluded.schedule,
        input = excluded.input,
        job_id = excluded.job_id,
        updated_at = excluded.updated_at;
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
