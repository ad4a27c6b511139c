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
