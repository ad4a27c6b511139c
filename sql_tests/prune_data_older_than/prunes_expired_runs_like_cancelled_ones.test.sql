begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: an expired run and a cancelled run, both ended 9 days ago; an expired run ended
-- an hour ago; a run still started with a deadline long past (not yet expired by a tick)
select pgflow_tests.setup_flow('two_roots');
select run_id as old_expired from pgflow.start_flow('two_roots', '{}'::jsonb, idempotency_key => 'old') \gset
select run_id as old_cancelled from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select run_id as new_expired from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.pass_deadline(:'old_expired');
select pgflow_tests.pass_deadline(:'new_expired');
select pgflow_tests.start_task(:'old_expired', 'root_a');
select pgflow._expire_runs(array[:'old_expired', :'new_expired']::uuid[]);
select pgflow.cancel_run(:'old_cancelled', 'ops', 'test');
update pgflow.runs set started_at = now() - interval '10 days', expired_at = now() - interval '9 days'
where run_id = :'old_expired';
update pgflow.runs set started_at = now() - interval '10 days', cancelled_at = now() - interval '9 days'
where run_id = :'old_cancelled';
select run_id as overdue from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
update pgflow.runs set started_at = now() - interval '10 days', deadline = now() - interval '9 days'
where run_id = :'overdue';

-- TEST: the old expired run goes with all its rows, as the old cancelled one
select pgflow.prune_data_older_than(interval '7 days');
select is((select count(*) from pgflow.runs where run_id in (:'old_expired', :'old_cancelled')), 0::bigint,
  'the expired and the cancelled run ended 9 days ago are deleted');
select is(
  (select count(*) from pgflow.step_states where run_id = :'old_expired')
  + (select count(*) from pgflow.step_tasks where run_id = :'old_expired')
  + (select count(*) from pgflow.run_events where run_id = :'old_expired'),
  0::bigint, 'with their step states, tasks and events');

-- TEST: a recent expired run and a started run past its deadline are kept
select is((select status from pgflow.runs where run_id = :'new_expired'), 'expired', 'the recent expired run is kept');
select is((select count(*) from pgflow.step_states where run_id = :'new_expired'), 3::bigint, 'with its step states');
select is((select status from pgflow.runs where run_id = :'overdue'), 'started', 'a started run past its deadline is kept');

-- TEST: the idempotency key of the pruned expired run is free again
select is((select duplicate from pgflow.start_flow('two_roots', '{}'::jsonb, idempotency_key => 'old')), false,
  'a start with the pruned run''s idempotency key creates a new run');

select * from finish();
rollback;
