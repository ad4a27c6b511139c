-- _schedule_job_name: the pg_cron job name of schedule schedule_name:
-- pgflow_schedule:<schedule_name> (at most 63 characters, pg_cron's name limit, since schedule
-- names have at most 47).

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
