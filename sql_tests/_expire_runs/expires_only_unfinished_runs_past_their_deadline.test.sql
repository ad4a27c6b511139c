begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: one step, one attempt; runs in every status a deadline can meet
select pgflow.create_flow('ex', max_attempts => 1);
select pgflow.add_step('ex', 'work');
select run_id as due from pgflow.start_flow('ex', '{}'::jsonb) \gset
select run_id as future from pgflow.start_flow('ex', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select run_id as no_deadline from pgflow.start_flow('ex', '{}'::jsonb) \gset
select run_id as done from pgflow.start_flow('ex', '{}'::jsonb) \gset
select run_id as failed from pgflow.start_flow('ex', '{}'::jsonb) \gset
select run_id as cancelled from pgflow.start_flow('ex', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'done', 'work');
select pgflow_tests.start_and_fail_task(:'failed', 'work');
select pgflow.cancel_run(:'cancelled', 'ops', 'test');
select pgflow_tests.pass_deadline(r) from unnest(array[:'due', :'done', :'failed', :'cancelled']::uuid[]) as r;
create temp table before_call as select * from pgflow.runs where run_id <> :'due';
select count(*) as events_before from pgflow.run_events where run_id <> :'due' \gset

-- TEST: of all of them only the started run past its deadline expires, and is returned
select is(pgflow._expire_runs(array[:'future', :'no_deadline', :'done', :'failed', :'cancelled', :'due']::uuid[]),
  array[:'due']::uuid[], 'only the unfinished run whose deadline passed is expired and returned');
select is((select status from pgflow.runs where run_id = :'due'), 'expired', 'it is expired');

-- TEST: the others are exactly as they were, and got no event
select set_eq($$select * from pgflow.runs where run_id in (select run_id from before_call)$$,
  $$select * from before_call$$, 'completed, failed, cancelled, future and deadline-less runs are untouched');
select is((select count(*) from pgflow.run_events where run_id <> :'due'), :'events_before'::bigint,
  'no event was recorded for them');

-- TEST: a repeated call expires nothing more and records nothing
select count(*) as events_after from pgflow.run_events \gset
select is(pgflow._expire_runs(array[:'due', :'done']::uuid[]), '{}'::uuid[], 'a second call returns no run');
select is((select count(*) from pgflow.run_events), :'events_after'::bigint, 'and records no event');

-- TEST: several runs are returned sorted; empty and NULL inputs return an empty array
select run_id as x1 from pgflow.start_flow('ex', '{}'::jsonb) \gset
select run_id as x2 from pgflow.start_flow('ex', '{}'::jsonb) \gset
select pgflow_tests.pass_deadline(:'x1');
select pgflow_tests.pass_deadline(:'x2');
select is(pgflow._expire_runs(array[greatest(:'x1'::uuid, :'x2'::uuid), least(:'x1'::uuid, :'x2'::uuid)]),
  array[least(:'x1'::uuid, :'x2'::uuid), greatest(:'x1'::uuid, :'x2'::uuid)], 'the ids come back sorted');
select is(pgflow._expire_runs('{}'), '{}'::uuid[], 'an empty array expires nothing');
select is(pgflow._expire_runs(null), '{}'::uuid[], 'NULL expires nothing');

select * from finish();
rollback;
