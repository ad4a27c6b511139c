begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a failed run whose second step looks ready
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'run_id';
update pgflow.step_states set remaining_deps = 0
where run_id = :'run_id' and step_slug = 'second';

-- TEST: nothing is started on a failed run
select pgflow.start_ready_steps(:'run_id');
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'second'),
  'created',
  'a ready step of a failed run is not started'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'second'),
  0,
  'no task is created for a failed run'
);

select * from finish();
rollback;
