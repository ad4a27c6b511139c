-- Helpers for the pgTAP suite, installed once per test database by tools/run_pgtap.sh.
-- Every test runs in begin ... rollback, so helpers may write freely.

-- (quietly: the helper files loaded before this one may have created it)
set client_min_messages = warning;
create schema if not exists pgflow_tests;
reset client_min_messages;

-- Remove every pgflow row and every flow queue, and undo any advance_clock (for tests that
-- need an empty database).
create or replace function pgflow_tests.reset_db()
returns void
language plpgsql
as $$
declare
  v_queue text;
begin
  for v_queue in select queue_name from pgmq.list_queues() loop
    perform pgmq.drop_queue(v_queue);
  end loop;
  delete from pgflow.wait_states;
  delete from pgflow.signals;
  delete from pgflow.step_tasks;
  delete from pgflow.step_states;
  delete from pgflow.runs;
  delete from pgflow.deps;
  delete from pgflow.step_waits;
  delete from pgflow.steps;
  delete from pgflow.flows;
  delete from pgflow.workers;
  delete from pgflow.worker_functions;
  -- The engine's time back to the database clock (pgflow.advance_clock moved it).
  delete from pgflow.test_clock;
end;
$$;

-- Well-known flows:
--   sequential:  first -> second -> last
--   two_roots:   root_a, root_b -> last (depends on both)
--   diamond:     root -> left, right -> last
--   root_map:    map over the run input
--   map_chain:   producer (single, returns array) -> mapper (map) -> reducer (single)
create or replace function pgflow_tests.setup_flow(flow_slug text)
returns void
language plpgsql
as $$
begin
  if flow_slug = 'sequential' then
    perform pgflow.create_flow('sequential', max_attempts => 1);
    perform pgflow.add_step('sequential', 'first');
    perform pgflow.add_step('sequential', 'second', array['first']);
    perform pgflow.add_step('sequential', 'last', array['second']);
  elsif flow_slug = 'two_roots' then
    perform pgflow.create_flow('two_roots', max_attempts => 1);
    perform pgflow.add_step('two_roots', 'root_a');
    perform pgflow.add_step('two_roots', 'root_b');
    perform pgflow.add_step('two_roots', 'last', array['root_a', 'root_b']);
  elsif flow_slug = 'diamond' then
    perform pgflow.create_flow('diamond', max_attempts => 1);
    perform pgflow.add_step('diamond', 'root');
    perform pgflow.add_step('diamond', 'left', array['root']);
    perform pgflow.add_step('diamond', 'right', array['root']);
    perform pgflow.add_step('diamond', 'last', array['left', 'right']);
  elsif flow_slug = 'root_map' then
    perform pgflow.create_flow('root_map', max_attempts => 1);
    perform pgflow.add_step('root_map', 'items', step_type => 'map');
  elsif flow_slug = 'map_chain' then
    perform pgflow.create_flow('map_chain', max_attempts => 1);
    perform pgflow.add_step('map_chain', 'producer');
    perform pgflow.add_step('map_chain', 'mapper', array['producer'], step_type => 'map');
    perform pgflow.add_step('map_chain', 'reducer', array['mapper']);
  else
    raise exception 'pgflow_tests.setup_flow: unknown flow %', flow_slug;
  end if;
end;
$$;

-- Register a worker row (start_tasks needs one: step_tasks.last_worker_id is a FK).
create or replace function pgflow_tests.ensure_worker(
  queue_name text,
  worker_uuid uuid default '11111111-1111-1111-1111-111111111111'
)
returns uuid
language sql
as $$
  insert into pgflow.workers (worker_id, queue_name, function_name)
  values (worker_uuid, queue_name, 'test_worker')
  on conflict (worker_id) do update set last_heartbeat_at = now()
  returning worker_id;
$$;

-- Read up to qty visible messages of the flow queue and start their tasks, as a worker does.
create or replace function pgflow_tests.read_and_start(
  flow_slug text,
  vt int default 1,
  qty int default 1,
  worker_uuid uuid default '11111111-1111-1111-1111-111111111111'
)
returns setof pgflow.step_task_record
language plpgsql
as $$
begin
  perform pgflow_tests.ensure_worker(flow_slug, worker_uuid);
  return query
  select *
  from pgflow.start_tasks(
    flow_slug,
    array(select msg_id from pgmq.read(flow_slug, vt, qty)),
    worker_uuid
  );
end;
$$;

-- Start and complete the next visible task with the given output.
create or replace function pgflow_tests.poll_and_complete(
  flow_slug text,
  output jsonb default '{"ok": true}'::jsonb
)
returns setof pgflow.step_tasks
language plpgsql
as $$
declare
  v_task pgflow.step_task_record;
begin
  select * into v_task from pgflow_tests.read_and_start(flow_slug, 1, 1) limit 1;
  if v_task.run_id is null then
    raise exception 'pgflow_tests.poll_and_complete: no task to start in %', flow_slug;
  end if;
  return query
  select * from pgflow.complete_task(v_task.run_id, v_task.step_slug, v_task.task_index, output);
end;
$$;

-- Start and fail the next visible task with the given error.
create or replace function pgflow_tests.poll_and_fail(
  flow_slug text,
  error_message text default 'boom'
)
returns setof pgflow.step_tasks
language plpgsql
as $$
declare
  v_task pgflow.step_task_record;
begin
  select * into v_task from pgflow_tests.read_and_start(flow_slug, 1, 1) limit 1;
  if v_task.run_id is null then
    raise exception 'pgflow_tests.poll_and_fail: no task to start in %', flow_slug;
  end if;
  return query
  select * from pgflow.fail_task(v_task.run_id, v_task.step_slug, v_task.task_index, error_message);
end;
$$;

-- Make every message of the flow queue visible now (skip delays and visibility timeouts).
create or replace function pgflow_tests.make_visible(flow_slug text)
returns void
language plpgsql
as $$
begin
  execute format('update pgmq.%I set vt = clock_timestamp() - interval ''1 second''',
                 pgmq.format_table_name(flow_slug, 'q'));
end;
$$;

-- Number of messages in the flow queue (q) or its archive (a).
create or replace function pgflow_tests.queue_count(flow_slug text, which text default 'q')
returns bigint
language plpgsql
as $$
declare
  v_count bigint;
begin
  execute format('select count(*) from pgmq.%I', pgmq.format_table_name(flow_slug, which))
    into v_count;
  return v_count;
end;
$$;

-- A stand-in for Supabase Realtime: realtime.send stores events in realtime.messages.
-- Broadcasts are emitted only when this function exists.
create or replace function pgflow_tests.create_realtime_stub()
returns void
language plpgsql
as $$
begin
  create schema if not exists realtime;
  create table if not exists realtime.messages (
    id bigserial primary key,
    payload jsonb,
    event text,
    topic text,
    private boolean,
    inserted_at timestamptz not null default clock_timestamp()
  );
  create or replace function realtime.send(payload jsonb, event text, topic text, private boolean)
  returns void
  language sql
  as 'insert into realtime.messages (payload, event, topic, private) values ($1, $2, $3, $4)';
end;
$$;

-- ---- Stalled-task helpers (time travel by backdating rows inside the test transaction) ----

-- Pretend that started tasks began `age` ago: started_at = now() - age, and queued_at moved
-- back too so that started_at >= queued_at still holds. Filters are optional (NULL = any).
-- Returns the number of tasks changed.
create or replace function pgflow_tests.backdate_started_tasks(
  age interval,
  p_step_slug text default null,
  p_task_index int default null,
  p_run_id uuid default null
)
returns int
language plpgsql
as $$
declare
  v_count int;
begin
  update pgflow.step_tasks as t
  set queued_at = least(t.queued_at, now() - age - interval '1 second'),
      started_at = now() - age
  where t.status = 'started'
    and (p_step_slug is null or t.step_slug = p_step_slug)
    and (p_task_index is null or t.task_index = p_task_index)
    and (p_run_id is null or t.run_id = p_run_id);
  get diagnostics v_count = row_count;
  return v_count;
end;
$$;

-- Visibility timeout of one message of the flow queue (NULL when it is not in the queue).
create or replace function pgflow_tests.message_vt(flow_slug text, msg_id bigint)
returns timestamptz
language plpgsql
as $$
declare
  v_vt timestamptz;
begin
  execute format('select vt from pgmq.%I where msg_id = $1', pgmq.format_table_name(flow_slug, 'q'))
    into v_vt using msg_id;
  return v_vt;
end;
$$;

-- Whether a message id is present in the flow queue (which = 'q') or its archive ('a').
create or replace function pgflow_tests.message_exists(flow_slug text, msg_id bigint, which text default 'q')
returns boolean
language plpgsql
as $$
declare
  v_found boolean;
begin
  execute format('select exists (select 1 from pgmq.%I where msg_id = $1)',
                 pgmq.format_table_name(flow_slug, which))
    into v_found using msg_id;
  return v_found;
end;
$$;

-- Number of messages of the flow queue that a reader could receive right now.
create or replace function pgflow_tests.visible_count(flow_slug text)
returns bigint
language plpgsql
as $$
declare
  v_count bigint;
begin
  execute format('select count(*) from pgmq.%I where vt <= clock_timestamp()',
                 pgmq.format_table_name(flow_slug, 'q'))
    into v_count;
  return v_count;
end;
$$;

-- ---------------------------------------------------------------------------------------
-- Helpers for the runtime-function tests (start_tasks, complete_task, fail_task, ...).

-- Seconds from now (clock time) until the visibility timeout of a message of the flow
-- queue; NULL when the message is not in the queue (archived, deleted or unknown).
create or replace function pgflow_tests.message_vt_seconds(flow_slug text, msg_id bigint)
returns numeric
language plpgsql
as $$
declare
  v_seconds numeric;
begin
  execute format(
    'select extract(epoch from (vt - clock_timestamp()))::numeric from pgmq.%I where msg_id = $1',
    pgmq.format_table_name(flow_slug, 'q'))
    into v_seconds
    using msg_id;
  return v_seconds;
end;
$$;

-- The message id of one task (run, step, task_index).
create or replace function pgflow_tests.task_msg_id(run_id uuid, step_slug text, task_index int default 0)
returns bigint
language sql
stable
as $$
  select t.message_id
  from pgflow.step_tasks as t
  where t.run_id = task_msg_id.run_id
    and t.step_slug = task_msg_id.step_slug
    and t.task_index = task_msg_id.task_index;
$$;

-- Start one specific task through pgflow.start_tasks, as a worker would after reading its
-- message (the message is not read through pgmq, so read_ct is unchanged).
create or replace function pgflow_tests.start_task(
  run_id uuid,
  step_slug text,
  task_index int default 0,
  worker_uuid uuid default '11111111-1111-1111-1111-111111111111'
)
returns setof pgflow.step_task_record
language plpgsql
as $$
declare
  v_flow_slug text;
begin
  select r.flow_slug into v_flow_slug from pgflow.runs as r where r.run_id = start_task.run_id;
  perform pgflow_tests.ensure_worker(v_flow_slug, worker_uuid);
  return query
  select *
  from pgflow.start_tasks(
    v_flow_slug,
    array[pgflow_tests.task_msg_id(start_task.run_id, start_task.step_slug, start_task.task_index)],
    worker_uuid
  );
end;
$$;

-- Start one specific task, then complete it with the given output.
create or replace function pgflow_tests.start_and_complete_task(
  run_id uuid,
  step_slug text,
  task_index int default 0,
  output jsonb default '{"ok": true}'::jsonb
)
returns setof pgflow.step_tasks
language plpgsql
as $$
begin
  perform pgflow_tests.start_task(
    start_and_complete_task.run_id, start_and_complete_task.step_slug, start_and_complete_task.task_index);
  return query
  select * from pgflow.complete_task(
    start_and_complete_task.run_id, start_and_complete_task.step_slug,
    start_and_complete_task.task_index, start_and_complete_task.output);
end;
$$;

-- Start one specific task, then fail it with the given error message.
create or replace function pgflow_tests.start_and_fail_task(
  run_id uuid,
  step_slug text,
  task_index int default 0,
  error_message text default 'boom'
)
returns setof pgflow.step_tasks
language plpgsql
as $$
begin
  perform pgflow_tests.start_task(
    start_and_fail_task.run_id, start_and_fail_task.step_slug, start_and_fail_task.task_index);
  return query
  select * from pgflow.fail_task(
    start_and_fail_task.run_id, start_and_fail_task.step_slug,
    start_and_fail_task.task_index, start_and_fail_task.error_message);
end;
$$;

-- Events broadcast on the topic of one run, in emission order (needs create_realtime_stub).
create or replace function pgflow_tests.run_events(run_id uuid)
returns text[]
language plpgsql
as $$
begin
  return (
    select coalesce(array_agg(m.event order by m.id), '{}')
    from realtime.messages as m
    where m.topic = 'pgflow:run:' || run_events.run_id::text
  );
end;
$$;

-- ---------------------------------------------------------------------------------------
-- Helpers for the definition-side and schema tests (create_flow, add_step, shapes, schema).

-- Whether a pgmq queue with exactly this name exists.
create or replace function pgflow_tests.queue_exists(queue_name text)
returns boolean
language sql
stable
as $$
  select exists (
    select 1 from pgmq.list_queues() as q where q.queue_name = queue_exists.queue_name
  );
$$;

-- Row counts of the pgflow tables plus the number of pgmq queues, as one jsonb object
-- (keys: flows, steps, deps, runs, step_states, step_tasks, queues). Used to assert that a
-- rejected call wrote nothing.
create or replace function pgflow_tests.row_counts()
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'flows', (select count(*) from pgflow.flows),
    'steps', (select count(*) from pgflow.steps),
    'deps', (select count(*) from pgflow.deps),
    'runs', (select count(*) from pgflow.runs),
    'step_states', (select count(*) from pgflow.step_states),
    'step_tasks', (select count(*) from pgflow.step_tasks),
    'queues', (select count(*) from pgmq.list_queues())
  );
$$;

-- Columns (or composite-type fields) of a relation in physical order, with their types as
-- format_type prints them (integer, text, timestamp with time zone, ...).
create or replace function pgflow_tests.table_columns(rel regclass)
returns table (column_name text, column_type text)
language sql
stable
as $$
  select a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod)
  from pg_catalog.pg_attribute as a
  where a.attrelid = rel and a.attnum > 0 and not a.attisdropped
  order by a.attnum;
$$;

-- Full signature of every function of that name in the schema, as
-- "name(<pg_get_function_arguments>) returns <pg_get_function_result>", overloads joined
-- by " | "; NULL when none exists. Types are always schema-qualified (pinned search_path).
create or replace function pgflow_tests.function_signature(function_name text, schema_name text default 'pgflow')
returns text
language sql
stable
set search_path = pg_catalog
as $$
  select string_agg(
    format('%s(%s) returns %s', p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid)),
    ' | ' order by p.oid)
  from pg_proc as p
  join pg_namespace as n on n.oid = p.pronamespace
  where n.nspname = function_signature.schema_name and p.proname = function_signature.function_name;
$$;

-- One step of a flow shape (the JSON ensure_flow_compiled receives from a worker), with
-- the defaults a worker sends. A NULL pattern is {"defined": false}, any other
-- {"defined": true, "value": <pattern>}. options: a jsonb object, omitted when NULL.
create or replace function pgflow_tests.shape_step(
  slug text,
  step_type text default 'single',
  dependencies text[] default '{}',
  when_unmet text default 'skip',
  when_exhausted text default 'fail',
  required_input_pattern jsonb default null,
  forbidden_input_pattern jsonb default null,
  options jsonb default null
)
returns jsonb
language sql
immutable
as $$
  select jsonb_build_object(
    'slug', slug,
    'stepType', step_type,
    'dependencies', to_jsonb(dependencies),
    'whenUnmet', when_unmet,
    'whenExhausted', when_exhausted,
    'requiredInputPattern', case when required_input_pattern is null then '{"defined": false}'::jsonb
      else jsonb_build_object('defined', true, 'value', required_input_pattern) end,
    'forbiddenInputPattern', case when forbidden_input_pattern is null then '{"defined": false}'::jsonb
      else jsonb_build_object('defined', true, 'value', forbidden_input_pattern) end
  ) || case when options is null then '{}'::jsonb else jsonb_build_object('options', options) end;
$$;

-- A flow shape {"steps": [...]} from shape_step() values, in the given order.
create or replace function pgflow_tests.shape(variadic steps jsonb[])
returns jsonb
language sql
immutable
as $$
  select jsonb_build_object('steps', coalesce(to_jsonb(steps), '[]'::jsonb));
$$;

-- Payload of the latest event with this name broadcast on the topic of one run (needs
-- create_realtime_stub); NULL when there is none.
create or replace function pgflow_tests.event_payload(run_id uuid, event text)
returns jsonb
language plpgsql
as $$
begin
  return (
    select m.payload
    from realtime.messages as m
    where m.topic = 'pgflow:run:' || event_payload.run_id::text
      and m.event = event_payload.event
    order by m.id desc
    limit 1
  );
end;
$$;

-- Sorted keys of a JSON object (to compare payload shapes).
create or replace function pgflow_tests.json_keys(obj jsonb)
returns text[]
language sql
immutable
as $$
  select coalesce(array_agg(k order by k collate "C"), '{}') from jsonb_object_keys(obj) as k;
$$;

-- Helpers for the attempt-fence tests: a task claimed by worker A, requeued as stalled, and
-- claimed again by worker B (attempt 2), with no timing involved.

create or replace function pgflow_tests.requeue_and_reclaim(
  run_id uuid,
  step_slug text,
  task_index int default 0,
  worker_b uuid default '22222222-2222-2222-2222-222222222222'
)
returns int
language plpgsql
as $$
declare
  v_attempt int;
begin
  -- Worker A stalls: its claim is older than the step timeout + 30 s.
  perform pgflow_tests.backdate_started_tasks(interval '10 minutes', requeue_and_reclaim.step_slug,
                                              requeue_and_reclaim.task_index, requeue_and_reclaim.run_id);
  perform pgflow.requeue_stalled_tasks();
  -- Worker B claims the requeued task.
  perform pgflow_tests.start_task(requeue_and_reclaim.run_id, requeue_and_reclaim.step_slug,
                                  requeue_and_reclaim.task_index, requeue_and_reclaim.worker_b);
  select t.attempts_count into v_attempt
  from pgflow.step_tasks as t
  where t.run_id = requeue_and_reclaim.run_id and t.step_slug = requeue_and_reclaim.step_slug
    and t.task_index = requeue_and_reclaim.task_index and t.status = 'started';
  return v_attempt;
end;
$$;

-- ---------------------------------------------------------------------------------------
-- Helpers for the tests of internal transition functions (_release_dependents,
-- _complete_runs, _advance_runs, ...): a step finished by hand, so that the function under
-- test is the only one doing the bookkeeping.

-- Mark step step_slug of run run_id completed with output, as if all its tasks had
-- completed: its tasks become completed (a single step's task with output, task i of a map
-- with output -> i), the step completed with remaining_tasks 0 and that output. Neither the
-- run nor the dependents are updated (see finish_step).
create or replace function pgflow_tests.mark_step_completed(run_id uuid, step_slug text, output jsonb)
returns void
language plpgsql
as $$
declare
  v_is_map boolean;
begin
  select s.step_type = 'map' into v_is_map
  from pgflow.step_states as ss
  join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
  where ss.run_id = mark_step_completed.run_id and ss.step_slug = mark_step_completed.step_slug;
  update pgflow.step_tasks as t
  set status = 'completed',
      started_at = coalesce(t.started_at, now()),
      completed_at = now(),
      output = case when v_is_map then mark_step_completed.output -> t.task_index
                    else mark_step_completed.output end
  where t.run_id = mark_step_completed.run_id and t.step_slug = mark_step_completed.step_slug;
  update pgflow.step_states as ss
  set status = 'completed',
      started_at = coalesce(ss.started_at, now()),
      completed_at = now(),
      remaining_tasks = 0,
      output = mark_step_completed.output
  where ss.run_id = mark_step_completed.run_id and ss.step_slug = mark_step_completed.step_slug;
end;
$$;

-- Mark step step_slug of run run_id skipped with skip_reason (condition_unmet,
-- handler_failed or dependency_skipped); neither the run nor the dependents are updated.
create or replace function pgflow_tests.mark_step_skipped(
  run_id uuid,
  step_slug text,
  skip_reason text default 'condition_unmet'
)
returns void
language sql
as $$
  update pgflow.step_states as ss
  set status = 'skipped', skip_reason = mark_step_skipped.skip_reason, skipped_at = now(),
      remaining_tasks = null
  where ss.run_id = mark_step_skipped.run_id and ss.step_slug = mark_step_skipped.step_slug;
$$;

-- mark_step_completed, then the bookkeeping of a finished step (pgflow._release_dependents:
-- the run loses the step, its dependents a pending parent; a run with no step left
-- completes). Nothing is started.
create or replace function pgflow_tests.finish_step(run_id uuid, step_slug text, output jsonb)
returns void
language plpgsql
as $$
begin
  perform pgflow_tests.mark_step_completed(finish_step.run_id, finish_step.step_slug, finish_step.output);
  perform pgflow._release_dependents(array[finish_step.run_id], array[finish_step.step_slug]);
end;
$$;

-- mark_step_completed, and the run's remaining_steps down by one by hand: unlike
-- finish_step, a run whose last step this was stays started (for tests of _complete_runs).
-- Dependents are not released.
create or replace function pgflow_tests.finish_step_keep_run(run_id uuid, step_slug text, output jsonb)
returns void
language plpgsql
as $$
begin
  perform pgflow_tests.mark_step_completed(finish_step_keep_run.run_id, finish_step_keep_run.step_slug,
                                           finish_step_keep_run.output);
  update pgflow.runs as r set remaining_steps = r.remaining_steps - 1
  where r.run_id = finish_step_keep_run.run_id;
end;
$$;

-- pgflow as an install script leaves it (not an extension): every member is detached from
-- the extension, which is then dropped, leaving the objects in place. (Roll back after.)
create or replace function pgflow_tests.detach_pgflow_extension()
returns void
language plpgsql
as $$
declare
  v_member record;
begin
  for v_member in
    select (pg_identify_object(d.classid, d.objid, d.objsubid)).*
    from pg_depend as d
    join pg_extension as e on e.oid = d.refobjid
    where e.extname = 'pgflow' and d.deptype = 'e'
  loop
    execute format('alter extension pgflow drop %s %s', v_member.type, v_member.identity);
  end loop;
  drop extension pgflow;
end;
$$;

-- Live rows fetched through index `idx` so far in this transaction (dead entries that
-- earlier, rolled-back tests left in the index are not counted).
create or replace function pgflow_tests.index_fetches(idx regclass)
returns bigint
language sql
as $$
  select pg_catalog.pg_stat_get_xact_tuples_fetched(idx);
$$;
