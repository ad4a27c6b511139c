begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a started run of a root map with two elements
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset

-- TEST: calling it again creates nothing new
select pgflow.start_ready_steps(:'run_id');
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id'),
  2,
  'no duplicate task is created for an already started step'
);
select is(
  pgflow_tests.queue_count('root_map'),
  2::bigint,
  'no duplicate message is sent'
);
select is(
  (select remaining_tasks from pgflow.step_states where run_id = :'run_id'),
  2,
  'remaining_tasks is unchanged'
);

select * from finish();
rollback;
