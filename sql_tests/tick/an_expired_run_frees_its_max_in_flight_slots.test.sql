begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: max_in_flight 2 shared by runs A (2 elements, started) and B (3 elements, held);
-- A's deadline passes
select pgflow.create_flow('em');
select pgflow.add_step('em', 'items', step_type => 'map', max_in_flight => 2);
select run_id as a from pgflow.start_flow('em', '[0, 1]'::jsonb, deadline => now() + interval '1 hour') \gset
select run_id as b from pgflow.start_flow('em', '[0, 1, 2]'::jsonb) \gset
select pgflow_tests.claim('em', 'aaaaaaaa-0000-0000-0000-00000000000a', 10);
select is(pgflow_tests.held_count('em'), 3::bigint, 'precondition: B''s three tasks held');
select pgflow_tests.pass_deadline(:'a');

-- TEST: the tick expires A; cancelling its started tasks frees both slots for B at once
select results_eq($$select ran, expired_runs from pgflow.tick()$$, $$values (true, 1)$$, 'tick: expired_runs 1');
select is((select status from pgflow.runs where run_id = :'a'), 'expired', 'A is expired');
select ok(pgflow_tests.message_vt('em', pgflow_tests.task_msg_id(:'b', 'items', 0)) <= clock_timestamp()
          and pgflow_tests.message_vt('em', pgflow_tests.task_msg_id(:'b', 'items', 1)) <= clock_timestamp(),
  'B''s tasks 0 and 1 are visible');
select is(pgflow_tests.claim('em', 'bbbbbbbb-0000-0000-0000-00000000000b', 10), 2, 'the next claim starts two of B''s tasks');
select is(pgflow_tests.task_statuses('em', 'items'), '{"cancelled": 2, "queued": 1, "started": 2}'::jsonb,
  'B''s third task waits (queued) for a slot');

-- TEST: an expired run with held messages: its rows are dropped, nothing is released
select pgflow_tests.pass_deadline(:'b');
select pgflow.tick();
select is(pgflow_tests.held_count('em'), 0::bigint, 'B expired: its held row is dropped');

select * from finish();
rollback;
