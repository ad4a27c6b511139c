-- setup_requeue_stalled_tasks_cron: schedule the stalled-task sweep with pg_cron.

create function pgflow.setup_requeue_stalled_tasks_cron(cron_interval text default '15 seconds')
returns text
language sql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
  select pgflow._setup_maintenance_cron('pgflow_requeue_stalled_tasks', 'select pgflow.requeue_stalled_tasks()',
                                        setup_requeue_stalled_tasks_cron.cron_interval);
$$;

comment on function pgflow.setup_requeue_stalled_tasks_cron(text) is
'Creates or replaces the pg_cron job pgflow_requeue_stalled_tasks running
select pgflow.requeue_stalled_tasks() on cron_interval (default ''15 seconds'';
any cron expression works; ''N minutes'' (1..59) becomes ''*/N * * * *''). pg_cron < 1.5 has no second-based schedules: then the job
runs every minute (''* * * * *'') and a NOTICE says so. Returns a text naming the job id
and schedule. Raises undefined_object when pg_cron is not installed in this database.
Idempotent (one job, replaced by name). As upstream pgflow 0.14.1, plus the pg_cron 1.4
fallback.';
