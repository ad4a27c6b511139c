begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: flow rd with max_in_flight 1 over 3 elements: task 0 started, tasks 1 and 2 held
select pgflow.create_flow('rd');
select pgflow.add_step('rd', 'items', step_type => 'map', max_in_flight => 1);
select run_id from pgflow.start_flow('rd', '[0, 1, 2]'::jsonb) \gset
select pgflow_tests.claim('rd', 'aaaaaaaa-0000-0000-0000-00000000000a', 3);
select is(pgflow_tests.held_count('rd'), 2::bigint, 'precondition: two held');

-- TEST: deleting the flow with its data deletes its held rows too
select pgflow.delete_flow_and_data('rd');
select is(pgflow_tests.held_count('rd'), 0::bigint, 'delete_flow_and_data leaves no throttled_messages row of the flow');

-- TEST: a flow created again with that slug (new queue: message ids start over) and a step
-- delayed 1 hour: the tick must not make its messages visible early
select pgflow.create_flow('rd');
select pgflow.add_step('rd', 'items', step_type => 'map', start_delay => 3600);
select run_id as again from pgflow.start_flow('rd', '[0, 1, 2]'::jsonb) \gset
select pgflow.tick();
select is(pgflow_tests.visible_task_messages('rd', 'items'), 0::bigint, 'every delayed message stays hidden');

select * from finish();
rollback;
