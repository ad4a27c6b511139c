begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a completed run whose second step looks ready
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
update pgflow.runs set status = 'completed', completed_at = now() where run_id = :'run_id';
update pgflow.step_states set remaining_deps = 0
where run_id = :'run_id' and step_slug = 'second';

-- TEST: nothing is started on a completed run
select pgflow.start_ready_steps(:'run_id');
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'second'),
  'created',
  'a ready step of a completed run is not started'
);
select is(
  pgflow_tests.queue_count('sequential'),
  1::bigint,
  'no message is sent for a completed run'
);

select * from finish();
rollback;
