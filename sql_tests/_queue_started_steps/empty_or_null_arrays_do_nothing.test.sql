begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: first -> next; a run whose "first" is finished by hand and "next" set started as
-- a caller would, but not passed to the function
select pgflow.create_flow('pair');
select pgflow.add_step('pair', 'first');
select pgflow.add_step('pair', 'next', array['first']);
select run_id from pgflow.start_flow('pair', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'run_id', 'first', '{}');
update pgflow.step_states set status = 'started', started_at = now(), remaining_tasks = initial_tasks
where run_id = :'run_id' and step_slug = 'next';
select pgflow_tests.write_counts() as before \gset
select count(*) as broadcasts_before from realtime.messages \gset

-- TEST: NULL arrays and empty arrays record, broadcast and queue nothing
select pgflow._queue_started_steps(null, null);
select pgflow._queue_started_steps('{}'::uuid[], '{}'::text[]);
select is(pgflow_tests.write_counts(), :'before'::jsonb, 'no event, task or message written');
select is((select count(*) from realtime.messages), :'broadcasts_before'::bigint, 'nothing broadcast');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'next'), 0,
  'next has no task');

select * from finish();
rollback;
