begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: root_map of four items, all started by one worker, then the run is cancelled
select pgflow_tests.setup_flow('root_map');
select run_id as run from pgflow.start_flow('root_map', '[1, 2, 3, 4]'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'root_map', 'x');
select count(*) from pgflow.read_and_start_tasks('root_map', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select count(*) from pgflow.cancel_run(:'run', 'alice', 'stop');

create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'runs', (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
    'steps', (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
    'events', (select jsonb_agg(to_jsonb(e) order by e.id) from pgflow.run_events as e),
    'queue', (select jsonb_agg(q.msg_id order by q.msg_id) from pgmq.q_root_map as q),
    'archive', (select jsonb_agg(a.msg_id order by a.msg_id) from pgmq.a_root_map as a));
$$;
create temp table before as select pg_temp.state() as s;
create temp table task0_before as
  select * from pgflow.step_tasks where run_id = :'run' and task_index = 0;
create temp table task2_before as
  select * from pgflow.step_tasks where run_id = :'run' and task_index = 2;

-- TEST: complete_task of a cancelled task returns its row unchanged
select results_eq(
  format($$select * from pgflow.complete_task(%L, 'items', 0, '"late"'::jsonb, 1)$$, :'run'),
  $$select * from task0_before$$,
  'complete_task returns the cancelled task''s row as it was'
);

-- TEST: complete_tasks reports it ignored with reason run_cancelled
select results_eq(
  format($$select task_index, status, outcome, reason, detail from pgflow.complete_tasks(
      array[%1$L, %1$L]::uuid[], array['items', 'items'], array[1, 2], array['"a"', '"b"']::jsonb[], array[1, 1])$$, :'run'),
  $$values (1, 'cancelled'::text, 'ignored'::text, 'run_cancelled'::text, null::text),
           (2, 'cancelled', 'ignored', 'run_cancelled', null)$$,
  'complete_tasks: each report ignored, task status cancelled, reason run_cancelled'
);
select results_eq(
  format($$select task_index, status, outcome, reason from pgflow.complete_tasks(
      array[%L]::uuid[], array['items'], array[3], array['"c"']::jsonb[])$$, :'run'),
  $$values (3, 'cancelled'::text, 'ignored'::text, 'run_cancelled'::text)$$,
  'complete_tasks without attempt fence: ignored, run_cancelled'
);

-- TEST: fail_task and fail_tasks of a cancelled task are ignored too
select results_eq(
  format($$select * from pgflow.fail_task(%L, 'items', 2, 'late failure', 1)$$, :'run'),
  $$select * from task2_before$$,
  'fail_task returns the cancelled task''s row as it was (no error recorded, no retry)'
);
select results_eq(
  format($$select task_index, status, outcome, reason from pgflow.fail_tasks(
      array[%L]::uuid[], array['items'], array[3], array['late failure'])$$, :'run'),
  $$values (3, 'cancelled'::text, 'ignored'::text, 'run_cancelled'::text)$$,
  'fail_tasks: ignored, reason run_cancelled'
);

-- TEST: nothing was written: no task completed or failed, no event, no message sent
select is(pg_temp.state(), (select s from before), 'runs, steps, tasks, events, queue and archive are unchanged');
select is(
  (select count(*) from pgflow.step_tasks where run_id = :'run' and status <> 'cancelled'),
  0::bigint, 'every task is still cancelled');

-- TEST: no worker can claim anything of the cancelled run
select is(
  (select count(*) from pgflow.read_and_start_tasks('root_map', '11111111-1111-1111-1111-111111111111', 10, 30, null)),
  0::bigint, 'read_and_start_tasks finds nothing to start');
select is(
  (select count(*) from pgflow.start_tasks('root_map',
     array(select message_id from pgflow.step_tasks where run_id = :'run'), '11111111-1111-1111-1111-111111111111')),
  0::bigint, 'start_tasks with the cancelled tasks'' message ids starts nothing');

select * from finish();
rollback;
