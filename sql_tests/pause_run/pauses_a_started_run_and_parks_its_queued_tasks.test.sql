begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a started, root_b queued, last created; a second run, queued
select pgflow_tests.setup_flow('two_roots');
select run_id as run from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'two_roots', 'x');
select count(*) from pgflow.read_and_start_tasks('two_roots', '11111111-1111-1111-1111-111111111111', 10, 30,
                                                 array['root_a']);
select run_id as other from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run', 'root_a') as a_msg,
       pgflow_tests.task_msg_id(:'run', 'root_b') as b_msg \gset
select coalesce(max(id), 0) as last_event from pgflow.run_events \gset

-- TEST: pause_run returns (run_id, paused, true, NULL); the run is paused (paused_at now)
select results_eq(
  format($$select * from pgflow.pause_run(%L, 'alice', 'investigating')$$, :'run'),
  format($$values (%L::uuid, 'paused'::text, true, null::text)$$, :'run'),
  'pause_run returns (run_id, paused, true, NULL)'
);
select results_eq(
  format($$select status, paused_at = now(), cancelled_at, completed_at, failed_at from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('paused'::text, true, null::timestamptz, null::timestamptz, null::timestamptz)$$,
  'the run is paused with paused_at now'
);

-- TEST: the queued task stays queued with its message_id, but its message is in the archive
select results_eq(
  format($$select step_slug, status, message_id from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run'),
  format($$values ('root_a'::text, 'started'::text, %s::bigint), ('root_b', 'queued', %s::bigint)$$, :a_msg, :b_msg),
  'tasks keep their status and message_id: root_a started, root_b queued'
);
select ok(
  not pgflow_tests.message_exists('two_roots', :b_msg::bigint) and pgflow_tests.message_exists('two_roots', :b_msg::bigint, 'a'),
  'the queued task''s message left the queue for the archive'
);
select ok(pgflow_tests.message_exists('two_roots', :a_msg::bigint), 'the started task''s message stays in the queue');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run'),
  $$values ('last'::text, 'created'::text), ('root_a', 'started'), ('root_b', 'started')$$,
  'steps keep their status'
);

-- TEST: a worker can claim nothing of the paused run (the other run's tasks still can)
select is(
  (select count(*) from pgflow.start_tasks('two_roots', array[:b_msg::bigint], '11111111-1111-1111-1111-111111111111')),
  0::bigint, 'start_tasks with the parked message id starts nothing');
select results_eq(
  $$select run_id from pgflow.read_and_start_tasks('two_roots', '11111111-1111-1111-1111-111111111111', 10, 30, null)
    group by run_id$$,
  format($$values (%L::uuid)$$, :'other'),
  'read_and_start_tasks starts only tasks of the other run'
);

-- TEST: run:paused with the actor and reason, and nothing else
select results_eq(
  format($$select run_id, event, step_slug, actor, reason from pgflow.run_events
           where id > %s and actor <> 'worker:11111111-1111-1111-1111-111111111111' order by id$$, :last_event),
  format($$values (%L::uuid, 'run:paused'::text, null::text, 'alice'::text, 'investigating'::text)$$, :'run'),
  'one event: run:paused by alice for investigating'
);

-- TEST: the actor is set back: a later statement of the transaction is not alice's
select run_id as third from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select results_eq(
  format($$select actor, reason from pgflow.run_events where run_id = %L and event = 'run:started'$$, :'third'),
  $$values ('app'::text, null::text)$$,
  'a run started after pause_run in the same transaction is recorded as app, without reason'
);

select * from finish();
rollback;
