begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a started, root_b queued; the run paused (root_b parked); the
-- pause lasts: the parked message's visibility time is long past
select pgflow_tests.setup_flow('two_roots');
select run_id as run from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'two_roots', 'x');
select count(*) from pgflow.read_and_start_tasks('two_roots', '11111111-1111-1111-1111-111111111111', 10, 30,
                                                 array['root_a']);
select pgflow_tests.task_msg_id(:'run', 'root_a') as a_msg,
       pgflow_tests.task_msg_id(:'run', 'root_b') as b_msg \gset
select count(*) from pgflow.pause_run(:'run', 'alice', 'hold');
update pgmq.a_two_roots set vt = now() - interval '1 hour' where msg_id = :b_msg;
select coalesce(max(id), 0) as last_event from pgflow.run_events \gset

-- TEST: resume_run returns (run_id, started, true, NULL); the run is started, paused_at cleared
select results_eq(
  format($$select * from pgflow.resume_run(%L, 'carol', 'all clear')$$, :'run'),
  format($$values (%L::uuid, 'started'::text, true, null::text)$$, :'run'),
  'resume_run returns (run_id, started, true, NULL)'
);
select results_eq(
  format($$select status, paused_at from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('started'::text, null::timestamptz)$$,
  'the run is started again, paused_at cleared'
);

-- TEST: the parked task has a new message, visible now; the old one stays in the archive
select pgflow_tests.task_msg_id(:'run', 'root_b') as b_new \gset
select isnt(:b_new::bigint, :b_msg::bigint, 'the parked task''s message_id changed');
select ok(pgflow_tests.message_exists('two_roots', :b_new::bigint), 'its new message is in the queue');
select cmp_ok(pgflow_tests.message_vt('two_roots', :b_new::bigint), '<=', clock_timestamp(),
              'and visible now (the delay fell due during the pause)');
select ok(
  pgflow_tests.message_exists('two_roots', :b_msg::bigint, 'a') and not pgflow_tests.message_exists('two_roots', :b_msg::bigint),
  'the old message stays in the archive only');

-- TEST: the started task keeps its message
select results_eq(
  format($$select status, message_id from pgflow.step_tasks where run_id = %L and step_slug = 'root_a'$$, :'run'),
  format($$values ('started'::text, %s::bigint)$$, :a_msg),
  'the started task keeps its status and its message');
select is(pgflow_tests.queue_count('two_roots'), 2::bigint, 'the queue holds the started task''s and the new message');

-- TEST: run:resumed by carol for all clear, and nothing else
select results_eq(
  format($$select event, step_slug, actor, reason from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'run', :last_event),
  $$values ('run:resumed'::text, null::text, 'carol'::text, 'all clear'::text)$$,
  'one event: run:resumed by carol for all clear'
);

-- TEST: a worker claims the resent task
select results_eq(
  $$select run_id, step_slug from pgflow.read_and_start_tasks('two_roots', '11111111-1111-1111-1111-111111111111', 10, 30, null)$$,
  format($$values (%L::uuid, 'root_b'::text)$$, :'run'),
  'read_and_start_tasks starts root_b'
);

select * from finish();
rollback;
