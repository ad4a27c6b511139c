-- _setup_maintenance_cron: create or replace the pg_cron job of a maintenance call.

create function pgflow._setup_maintenance_cron(job_name text, command text, cron_interval text)
returns text
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_version text;
  v_schedule text := cron_interval;
  v_job_id bigint;
  v_minutes int;
  -- Kept in a variable: the cron schema may not exist when this function is checked.
  v_schedule_sql text := 'select cron.schedule($1, $2, $3)';
begin
  select e.extversion into v_version from pg_catalog.pg_extension as e where e.extname = 'pg_cron';
  if v_version is null then
    raise exception using
      errcode = 'undefined_object',
      message = 'pg_cron is not installed in this database',
      hint = 'Add pg_cron to shared_preload_libraries and run CREATE EXTENSION pg_cron in the '
             'database named by cron.database_name, or run ' || _setup_maintenance_cron.command
             || ' from your own scheduler (pgflow-worker also runs it every few seconds).';
  end if;
  if v_schedule is null or btrim(v_schedule) = '' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = 'cron_interval must be a cron expression or an interval such as ''15 seconds''';
  end if;

  -- Intervals in minutes become cron expressions (pg_cron's interval syntax is seconds only).
  v_minutes := substring(v_schedule from '^\s*(\d+)\s*minutes?\s*$')::int;
  if v_minutes is not null then
    if v_minutes < 1 or v_minutes > 59 then
      raise exception using
        errcode = 'invalid_parameter_value',
        message = format('cron_interval %L: minute intervals must be 1 to 59 minutes', cron_interval);
    end if;
    v_schedule := case when v_minutes = 1 then '* * * * *' else format('*/%s * * * *', v_minutes) end;
  end if;

  -- pg_cron < 1.5 only knows minute-granularity cron expressions.
  if v_schedule ~* '^\s*\d+\s*seconds?\s*$'
     and string_to_array(split_part(v_version, '-', 1), '.')::int[] < array[1, 5] then
    raise notice 'pg_cron % has no second-based schedules; scheduling % every minute instead of every %',
      v_version, _setup_maintenance_cron.job_name, v_schedule;
    v_schedule := '* * * * *';
  end if;

  execute v_schedule_sql
    into v_job_id
    using _setup_maintenance_cron.job_name, v_schedule, _setup_maintenance_cron.command;

  return format('Scheduled %s (job %s) with schedule ''%s''', _setup_maintenance_cron.job_name, v_job_id,
                v_schedule);
end;
$$;

comment on function pgflow._setup_maintenance_cron(text, text, text) is
'Creates or replaces the pg_cron job job_name running command on cron_interval (any cron
expression; ''N seconds''; ''N minutes'' (1..59) becomes ''*/N * * * *''; pg_cron < 1.5,
which has no second-based schedules, runs it every minute and a NOTICE says so). Returns a
text naming the job id and schedule. Raises undefined_object when pg_cron is not installed
in this database, invalid_parameter_value for a blank interval or minutes out of range.
pgflow-py internal, used by setup_requeue_stalled_tasks_cron and setup_tick_cron.';
