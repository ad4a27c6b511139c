-- unschedule_flow: removes schedule schedule_name (default: the flow slug) of flow flow_slug:
-- its pgflow.schedules row and its pg_cron job.

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
