-- setup_tick_cron: schedule pgflow.tick() with pg_cron.

create function pgflow.setup_tick_cron(cron_interval text default '5 seconds')
returns text
language sql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
  select pgflow._setup_maintenance_cron('pgflow_tick', 'select pgflow.tick()', setup_tick_cron.cron_interval);
$$;

comment on function pgflow.setup_tick_cron(text) is
'Creates or replaces the pg_cron job pgflow_tick running select pgflow.tick() (wait
timeouts, timers, the stalled-task requeue) on cron_interval (default ''5 seconds''; as
setup_requeue_stalled_tasks_cron for other values and for pg_cron < 1.5). A wait then
fires within the interval plus a second of its deadline. Returns a text naming the job id
and schedule. Raises undefined_object when pg_cron is not installed in this database.
Idempotent (one job, replaced by name). pgflow-py extension.';
