-- prune_data_older_than: retention for finished runs, dead workers and archived messages.

create function pgflow.prune_data_older_than(retention_interval interval)
returns void
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_cutoff timestamptz;
  v_flow record;
begin
  if retention_interval is null or retention_interval < interval '0' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('retention_interval must be a non-negative interval (got %s)', retention_interval);
  end if;
  v_cutoff := pgflow._now() - retention_interval;

  -- Workers silent since before the cutoff, but not one that still holds a started task
  -- (a permanently stalled task keeps naming its worker; and the foreign key's ON DELETE
  -- SET NULL would change a started task without its run's lock, which a report of that
  -- task counts on: _lock_task_reports).
  delete from pgflow.workers as w
  where w.last_heartbeat_at < v_cutoff
    and not exists (select 1 from pgflow.step_tasks as t
                    where t.last_worker_id = w.worker_id and t.status = 'started');

  for v_flow in select f.flow_slug from pgflow.flows as f loop
    -- Messages of finished runs still in the queue (e.g. of skipped siblings) go first.
    execute format(
      'delete from pgmq.%I as q using pgflow.step_tasks as t, pgflow.runs as r
       where q.msg_id = t.message_id and t.flow_slug = $1 and r.run_id = t.run_id
         and r.status in (''completed'', ''failed'', ''cancelled'', ''expired'')
         and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < $2',
      pgmq.format_table_name(v_flow.flow_slug, 'q')
    ) using v_flow.flow_slug, v_cutoff;
    -- The archive's times are pgmq's (clock_timestamp(); advance_clock moves them with the
    -- engine's), so its cutoff is on that clock: retention_interval before now.
    execute format('delete from pgmq.%I where archived_at < $1', pgmq.format_table_name(v_flow.flow_slug, 'a'))
      using clock_timestamp() - retention_interval;
  end loop;

  -- Finished runs before the cutoff, children and audit trail first (idx_runs_ended_at
  -- finds them).
  delete from pgflow.map_task_inputs as mi
  using pgflow.runs as r
  where mi.run_id = r.run_id and r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < v_cutoff;
  delete from pgflow.step_tasks as t
  using pgflow.runs as r
  where t.run_id = r.run_id and r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < v_cutoff;
  delete from pgflow.wait_states as ws
  using pgflow.runs as r
  where ws.run_id = r.run_id and r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < v_cutoff;
  delete from pgflow.signals as sg
  using pgflow.runs as r
  where sg.run_id = r.run_id and r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < v_cutoff;
  delete from pgflow.step_states as ss
  using pgflow.runs as r
  where ss.run_id = r.run_id and r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < v_cutoff;
  delete from pgflow.run_events as e
  using pgflow.runs as r
  where e.run_id = r.run_id and r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < v_cutoff;
  delete from pgflow.runs as r
  where r.status in ('completed', 'failed', 'cancelled', 'expired')
    and coalesce(r.completed_at, r.failed_at, r.cancelled_at, r.expired_at) < v_cutoff;

  -- Run and step stats of the 5-minute buckets that started before the cutoff.
  delete from pgflow.run_stats as rs where rs.bucket_start < v_cutoff;
  delete from pgflow.step_stats as ss where ss.bucket_start < v_cutoff;
  delete from pgflow.stats_buckets as b where b.bucket_start < v_cutoff;
end;
$$;

comment on function pgflow.prune_data_older_than(interval) is
'Deletes history older than retention_interval (cutoff = the engine''s time, pgflow._now(),
minus retention_interval):
workers whose last heartbeat is older and that hold no started task (a worker that does is
kept until its task is requeued or ends); runs completed, failed, cancelled or expired before
the cutoff with all their step_tasks, map_task_inputs, wait_states, signals, step_states
and run_events (and their messages still in the queue), and with them their idempotency
keys (a later start with such a key creates a new run); archived messages (pgmq.a_<flow>)
archived longer than retention_interval ago (on pgmq''s clock, clock_timestamp(), which
advance_clock moves along with the engine''s); the run and step stats (run_stats, step_stats, stats_buckets)
of the 5-minute buckets that started before the cutoff. Runs still queued, started or
paused are never touched. Raises invalid_parameter_value for a NULL or negative interval. Upstream ships
this function as copy-paste documentation; pgflow-py installs it.';
