begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: max_in_flight 2 (set on the steps row); three runs of 2 elements each
select pgflow.create_flow('shr');
select pgflow.add_step('shr', 'items', step_type => 'map');
update pgflow.steps set opt_max_in_flight = 2 where flow_slug = 'shr' and step_slug = 'items';
select run_id as r1 from pgflow.start_flow('shr', '[1, 2]'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('shr', '[3, 4]'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('shr', '[5, 6]'::jsonb) \gset

-- TEST: claims by three workers, two messages each, start two tasks in all
select pgflow_tests.claim('shr', 'aaaaaaaa-0000-0000-0000-00000000000a', 2) as a \gset
select pgflow_tests.claim('shr', 'bbbbbbbb-0000-0000-0000-00000000000b', 2) as b \gset
select pgflow_tests.claim('shr', 'cccccccc-0000-0000-0000-00000000000c', 2) as c \gset
select is(array[:a, :b, :c], array[2, 0, 0], 'worker A starts two tasks, B and C none');
select is(pgflow_tests.task_statuses('shr', 'items'), '{"queued": 4, "started": 2}'::jsonb,
  'two tasks started across the three runs');
select is((select array_agg(distinct run_id) from pgflow.step_tasks where status = 'started'), array[:'r1']::uuid[],
  'the two started tasks are run 1''s (lowest message ids)');

-- TEST: the tasks of runs 2 and 3 are held, none spent an attempt
select is(pgflow_tests.held_count('shr', 'items'), 4::bigint, 'four held rows');
select is((select count(*) from pgflow.step_tasks where run_id in (:'r2', :'r3') and attempts_count = 0 and status = 'queued'),
  4::bigint, 'runs 2 and 3: four queued tasks, attempts_count 0');

-- TEST: completing run 1's tasks makes run 2's two messages visible (slots are per step,
-- not per run)
select pgflow.complete_task(:'r1', 'items', 0, '1'::jsonb);
select pgflow.complete_task(:'r1', 'items', 1, '2'::jsonb);
select is(pgflow_tests.claim('shr', 'cccccccc-0000-0000-0000-00000000000c', 10), 2, 'the next claim starts two tasks');

select * from finish();
rollback;
