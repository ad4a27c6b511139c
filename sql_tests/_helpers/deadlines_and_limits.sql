-- Helpers for the tests of run deadlines (expiry) and of max_in_flight (held messages),
-- installed once per test database by tools/run_pgtap.sh (before pgflow_tests.sql, so the
-- schema is created here too and the bodies are PL/pgSQL, bound when first called).
-- Every test runs in begin ... rollback, so helpers may write freely.

create schema if not exists pgflow_tests;

-- Move a run's deadline one second into the past (time travel without sleeping).
create or replace function pgflow_tests.pass_deadline(run_id uuid)
returns void
language plpgsql
as $$
begin
  update pgflow.runs as r
  set deadline = now() - interval '1 second'
  where r.run_id = pass_deadline.run_id;
  if not found then
    raise exception 'pgflow_tests.pass_deadline: unknown run %', pass_deadline.run_id;
  end if;
end;
$$;

-- What is left live of a run, as one jsonb object: step states still created, started or
-- waiting (live_steps), tasks still queued or started (live_tasks), messages of its tasks
-- still in the flow queue (queued_messages) and in its archive (archived_messages), and
-- unresolved waits (open_waits). An expired or cancelled run has zeros but archived_messages.
create or replace function pgflow_tests.run_leftovers(run_id uuid)
returns jsonb
language plpgsql
as $$
declare
  v_flow_slug text;
  v_msg_ids bigint[];
  v_in_q bigint;
  v_in_a bigint;
begin
  select r.flow_slug into v_flow_slug from pgflow.runs as r where r.run_id = run_leftovers.run_id;
  select coalesce(array_agg(t.message_id), '{}') into v_msg_ids
  from pgflow.step_tasks as t
  where t.run_id = run_leftovers.run_id and t.message_id is not null;
  execute format('select count(*) from pgmq.%I where msg_id = any($1)', pgmq.format_table_name(v_flow_slug, 'q'))
    into v_in_q using v_msg_ids;
  execute format('select count(*) from pgmq.%I where msg_id = any($1)', pgmq.format_table_name(v_flow_slug, 'a'))
    into v_in_a using v_msg_ids;
  return jsonb_build_object(
    'live_steps', (select count(*) from pgflow.step_states as ss
                   where ss.run_id = run_leftovers.run_id and ss.status in ('created', 'started', 'waiting')),
    'live_tasks', (select count(*) from pgflow.step_tasks as t
                   where t.run_id = run_leftovers.run_id and t.status in ('queued', 'started')),
    'queued_messages', v_in_q,
    'archived_messages', v_in_a,
    'open_waits', (select count(*) from pgflow.wait_states as ws
                   where ws.run_id = run_leftovers.run_id and ws.resolved_at is null)
  );
end;
$$;

-- The details of the run:expired events of a run, oldest first (empty when none).
create or replace function pgflow_tests.expired_events(run_id uuid)
returns jsonb[]
language plpgsql
as $$
begin
  return (
    select coalesce(array_agg(e.details order by e.id), '{}')
    from pgflow.run_events as e
    where e.run_id = expired_events.run_id and e.event = 'run:expired'
  );
end;
$$;

-- Register a worker for a flow through pgflow.register_worker (once per worker id).
create or replace function pgflow_tests.register(flow_slug text, worker_uuid uuid)
returns uuid
language plpgsql
as $$
begin
  if not exists (select 1 from pgflow.workers as w where w.worker_id = register.worker_uuid) then
    perform pgflow.register_worker(register.worker_uuid, register.flow_slug, 'deadlines_and_limits');
  end if;
  return register.worker_uuid;
end;
$$;

-- One claim as a worker makes it: read_and_start_tasks of up to qty messages for worker
-- worker_uuid (lease 30 s); returns how many tasks it started.
create or replace function pgflow_tests.claim(flow_slug text, worker_uuid uuid, qty int)
returns int
language plpgsql
as $$
declare
  v_started int;
begin
  perform pgflow_tests.register(claim.flow_slug, claim.worker_uuid);
  select count(*) filter (where c.run_id is not null)::int into v_started
  from pgflow.read_and_start_tasks(claim.flow_slug, claim.worker_uuid, claim.qty, 30) as c;
  return v_started;
end;
$$;

-- Tasks of a step (every run) by status, as jsonb {status: count}.
create or replace function pgflow_tests.task_statuses(flow_slug text, step_slug text)
returns jsonb
language plpgsql
as $$
begin
  return (
    select coalesce(jsonb_object_agg(s.status, s.n), '{}')
    from (
      select t.status, count(*) as n
      from pgflow.step_tasks as t
      where t.flow_slug = task_statuses.flow_slug and t.step_slug = task_statuses.step_slug
      group by t.status
    ) as s
  );
end;
$$;

-- Messages of a step's queued tasks (every run) that a reader could receive now (vt <=
-- clock time).
create or replace function pgflow_tests.visible_task_messages(flow_slug text, step_slug text)
returns bigint
language plpgsql
as $$
declare
  v_count bigint;
begin
  execute format(
    'select count(*) from pgmq.%I as q join pgflow.step_tasks as t on t.message_id = q.msg_id
     where t.flow_slug = $1 and t.step_slug = $2 and t.status = ''queued'' and q.vt <= clock_timestamp()',
    pgmq.format_table_name(visible_task_messages.flow_slug, 'q'))
    into v_count using visible_task_messages.flow_slug, visible_task_messages.step_slug;
  return v_count;
end;
$$;

-- The held messages of a step: their throttled_messages rows joined with the queue, as
-- (message_id, task status, attempts_count, seconds until visible) in message order.
create or replace function pgflow_tests.held_messages(flow_slug text, step_slug text)
returns table (message_id bigint, task_status text, attempts_count int, vt_seconds numeric)
language plpgsql
as $$
begin
  return query execute format(
    'select tm.message_id, t.status, t.attempts_count,
            extract(epoch from (q.vt - clock_timestamp()))::numeric
     from pgflow.throttled_messages as tm
     left join pgflow.step_tasks as t on t.flow_slug = tm.flow_slug and t.message_id = tm.message_id
     left join pgmq.%I as q on q.msg_id = tm.message_id
     where tm.flow_slug = $1 and tm.step_slug = $2
     order by tm.message_id',
    pgmq.format_table_name(held_messages.flow_slug, 'q'))
    using held_messages.flow_slug, held_messages.step_slug;
end;
$$;

-- Number of throttled_messages rows of a flow (of one step when step_slug is given).
create or replace function pgflow_tests.held_count(flow_slug text, step_slug text default null)
returns bigint
language plpgsql
as $$
begin
  return (
    select count(*) from pgflow.throttled_messages as tm
    where tm.flow_slug = held_count.flow_slug
      and (held_count.step_slug is null or tm.step_slug = held_count.step_slug)
  );
end;
$$;

-- Everything stored about a run, as one jsonb value (its runs row, its step_states and
-- step_tasks rows, its run_events count, its messages in queue and archive, its held rows):
-- equal before and after a call that must change nothing.
create or replace function pgflow_tests.run_snapshot(run_id uuid)
returns jsonb
language plpgsql
as $$
begin
  return jsonb_build_object(
    'run', (select to_jsonb(r) from pgflow.runs as r where r.run_id = run_snapshot.run_id),
    'steps', (select jsonb_agg(to_jsonb(ss) order by ss.step_slug) from pgflow.step_states as ss
              where ss.run_id = run_snapshot.run_id),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.step_slug, t.task_index) from pgflow.step_tasks as t
              where t.run_id = run_snapshot.run_id),
    'events', (select count(*) from pgflow.run_events as e where e.run_id = run_snapshot.run_id),
    'held', (select count(*) from pgflow.throttled_messages as tm
             join pgflow.step_tasks as t on t.flow_slug = tm.flow_slug and t.message_id = tm.message_id
             where t.run_id = run_snapshot.run_id),
    'leftovers', pgflow_tests.run_leftovers(run_snapshot.run_id)
  );
end;
$$;
