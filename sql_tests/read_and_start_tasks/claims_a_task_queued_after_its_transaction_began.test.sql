begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a queued task whose queued_at is later than this transaction's now(), as when
-- read_and_start_tasks reads a message committed by a transaction that began after it
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1]') \gset
select pgflow_tests.ensure_worker('root_map') as worker \gset
update pgflow.step_tasks set queued_at = now() + interval '1 second' where run_id = :'run_id';

-- TEST: the claim succeeds and started_at does not precede queued_at
select is((select count(*)::int from pgflow.read_and_start_tasks('root_map', :'worker', 10, 30)
           where run_id is not null), 1, 'the task is claimed');
select ok((select started_at >= queued_at from pgflow.step_tasks where run_id = :'run_id'),
  'started_at is not before queued_at');

select * from finish();
rollback;
