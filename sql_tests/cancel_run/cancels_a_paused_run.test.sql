begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a started, root_b queued; the run is paused (root_b parked)
select pgflow_tests.setup_flow('two_roots');
select run_id as run from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'two_roots', 'x');
select count(*) from pgflow.read_and_start_tasks('two_roots', '11111111-1111-1111-1111-111111111111', 10, 30,
                                                 array['root_a']);
select pgflow_tests.task_msg_id(:'run', 'root_a') as a_msg,
       pgflow_tests.task_msg_id(:'run', 'root_b') as b_msg \gset
select count(*) from pgflow.pause_run(:'run', 'ops', 'hold');
select coalesce(max(id), 0) as last_event from pgflow.run_events \gset

-- TEST: the paused run is cancelled and is no longer paused
select results_eq(
  format($$select * from pgflow.cancel_run(%L, 'bob', null)$$, :'run'),
  format($$values (%L::uuid, 'cancelled'::text, true, null::text)$$, :'run'),
  'cancel_run of a paused run returns (run_id, cancelled, true, NULL)'
);
select results_eq(
  format($$select status, cancelled_at = now(), paused_at from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('cancelled'::text, true, null::timestamptz)$$,
  'status cancelled, cancelled_at now, paused_at cleared'
);

-- TEST: its steps and tasks are cancelled
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run'),
  $$values ('last'::text, 'cancelled'::text), ('root_a', 'cancelled'), ('root_b', 'cancelled')$$,
  'the created and the started steps are cancelled'
);
select results_eq(
  format($$select step_slug, status, cancelled_at = now() from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run'),
  $$values ('root_a'::text, 'cancelled'::text, true), ('root_b', 'cancelled', true)$$,
  'the started task and the parked queued task are cancelled'
);

-- TEST: the queue is empty, the archive holds both messages (the parked one once)
select is(pgflow_tests.queue_count('two_roots'), 0::bigint, 'the queue is empty');
select results_eq(
  $$select msg_id from pgmq.a_two_roots order by msg_id$$,
  format($$values (%s::bigint), (%s::bigint)$$, least(:a_msg, :b_msg), greatest(:a_msg, :b_msg)),
  'the archive holds the started task''s message and the parked message, once each'
);

-- TEST: run:cancelled by bob (no reason), after the pause
select results_eq(
  format($$select event, step_slug, actor, reason from pgflow.run_events
           where run_id = %L and id > %s order by event, step_slug$$, :'run', :last_event),
  $$values ('run:cancelled'::text, null::text, 'bob'::text, null::text),
           ('step:cancelled', 'last', 'bob', null), ('step:cancelled', 'root_a', 'bob', null),
           ('step:cancelled', 'root_b', 'bob', null)$$,
  'events run:cancelled and step:cancelled by bob, reason NULL'
);

select * from finish();
rollback;
