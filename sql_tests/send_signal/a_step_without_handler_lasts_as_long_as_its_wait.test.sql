begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a root wait without handler that has waited for an hour (waiting_since moved back)
select pgflow.create_flow('dur');
select pgflow.add_step('dur', 'approved');
select pgflow.add_wait('dur', 'approved', 'approved', runs_handler => false);
select run_id from pgflow.start_flow('dur', '{}'::jsonb) \gset
update pgflow.step_states set created_at = now() - interval '2 hours' where run_id = :'run_id';
update pgflow.wait_states set waiting_since = now() - interval '1 hour' where run_id = :'run_id';

-- TEST: once the signal comes, the step's started_at is when it began waiting, so its
-- duration (completed_at - started_at) is the wait
select count(*) from pgflow.send_signal(:'run_id', 'approved', '{"by": "carol"}');
select results_eq(
  format($$select status, started_at = now() - interval '1 hour', completed_at = now()
           from pgflow.step_states where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, true, true)$$,
  'completed, started_at = waiting_since, completed_at = now');
select is((select completed_at - started_at from pgflow.step_states where run_id = :'run_id'),
  interval '1 hour', 'it lasted the hour it waited');

select * from finish();
rollback;
