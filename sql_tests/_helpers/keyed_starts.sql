-- Helpers for the tests of keyed starts (idempotency_key, concurrency_key and the concurrency
-- limit of a flow): a limited flow, a keyed run, the ways a run ends, and a count of every
-- row a start could write. Loaded by tools/run_pgtap.sh in file-name order (before
-- pgflow_tests.sql: the plpgsql bodies here call its helpers only when they run).

set client_min_messages = warning;
create schema if not exists pgflow_tests;

-- Every row a start (or a verb on a run) could write, as one jsonb object: runs,
-- step_states, step_tasks, map_task_inputs, run_events, signals, wait_states, and the
-- messages of every flow queue and archive (pgmq q_ and a_ tables). Compare two calls to
-- prove that a call wrote nothing.
create or replace function pgflow_tests.write_counts()
returns jsonb
language plpgsql
as $$
declare
  v_queue text;
  v_count bigint;
  v_messages bigint := 0;
  v_archived bigint := 0;
begin
  for v_queue in select q.queue_name from pgmq.list_queues() as q loop
    execute format('select count(*) from pgmq.%I', pgmq.format_table_name(v_queue, 'q')) into v_count;
    v_messages := v_messages + v_count;
    execute format('select count(*) from pgmq.%I', pgmq.format_table_name(v_queue, 'a')) into v_count;
    v_archived := v_archived + v_count;
  end loop;
  return jsonb_build_object(
    'runs', (select count(*) from pgflow.runs),
    'step_states', (select count(*) from pgflow.step_states),
    'step_tasks', (select count(*) from pgflow.step_tasks),
    'map_task_inputs', (select count(*) from pgflow.map_task_inputs),
    'run_events', (select count(*) from pgflow.run_events),
    'signals', (select count(*) from pgflow.signals),
    'wait_states', (select count(*) from pgflow.wait_states),
    'messages', v_messages,
    'archived', v_archived
  );
end;
$$;

-- A flow with one root single step 'work' (max_attempts 1: one failed task fails the run)
-- and the given concurrency_limit (NULL: none) and on_limit (queue | reject).
create or replace function pgflow_tests.limited_flow(
  flow_slug text,
  concurrency_limit int,
  on_limit text default 'queue'
)
returns void
language plpgsql
as $$
begin
  perform pgflow.create_flow(limited_flow.flow_slug, max_attempts => 1,
                             concurrency_limit => limited_flow.concurrency_limit,
                             on_limit => limited_flow.on_limit);
  perform pgflow.add_step(limited_flow.flow_slug, 'work');
end;
$$;

-- Starts a run of flow_slug with input {} and concurrency_key (run_id: optional) and
-- returns its run_id.
create or replace function pgflow_tests.keyed_run(
  flow_slug text,
  concurrency_key text,
  run_id uuid default null
)
returns uuid
language sql
as $$
  select s.run_id
  from pgflow.start_flow(keyed_run.flow_slug, '{}'::jsonb, keyed_run.run_id,
                         concurrency_key => keyed_run.concurrency_key) as s;
$$;

-- Ends started run run_id of a limited_flow() flow in the way named by how: completed (its
-- 'work' task completes), failed (its 'work' task fails), cancelled (cancel_run) or expired
-- (its deadline is set in the past, then pgflow._expire_runs). Returns its status after.
create or replace function pgflow_tests.end_run(run_id uuid, how text)
returns text
language plpgsql
as $$
begin
  if how = 'completed' then
    perform pgflow_tests.start_and_complete_task(end_run.run_id, 'work');
  elsif how = 'failed' then
    perform pgflow_tests.start_and_fail_task(end_run.run_id, 'work');
  elsif how = 'cancelled' then
    perform pgflow.cancel_run(end_run.run_id, 'tester', 'test');
  elsif how = 'expired' then
    update pgflow.runs as r set deadline = now() - interval '1 second' where r.run_id = end_run.run_id;
    perform pgflow._expire_runs(array[end_run.run_id]);
  else
    raise exception 'pgflow_tests.end_run: unknown way %', how;
  end if;
  return (select r.status from pgflow.runs as r where r.run_id = end_run.run_id);
end;
$$;

-- Status of one run (NULL when it does not exist).
create or replace function pgflow_tests.run_status(run_id uuid)
returns text
language sql
stable
as $$
  select r.status from pgflow.runs as r where r.run_id = run_status.run_id;
$$;
