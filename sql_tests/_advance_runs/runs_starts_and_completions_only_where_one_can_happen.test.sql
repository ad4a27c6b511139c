begin;
select plan(7);
select pgflow_tests.reset_db();
-- Function calls are counted in this transaction (pg_stat_xact_user_functions).
set local track_functions = 'pl';
create function pg_temp.calls(fn text) returns bigint language sql as $$
  select coalesce((select calls from pg_stat_xact_user_functions
                   where schemaname = 'pgflow' and funcname = fn), 0)
$$;

-- SETUP: a 3-step chain, its first step's task claimed
select pgflow_tests.setup_flow('sequential');
select run_id as r from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'r', 'first');
select pg_temp.calls('_start_ready_steps') as starts0, pg_temp.calls('_complete_runs') as completes0,
       pg_temp.calls('_advance_runs') as advances0 \gset

-- TEST: a completion that makes a step ready starts it, and the run (two steps left) is
-- offered for completion once only: when its step is counted off (_release_dependents),
-- not again by _advance_runs
select count(*) from pgflow.complete_task(:'r', 'first', 0, '1'::jsonb);
select is(
  (select status from pgflow.step_states where run_id = :'r' and step_slug = 'second'),
  'started', 'the next step started'
);
select is(pg_temp.calls('_start_ready_steps') - :starts0, 1::bigint, 'one start');
select is(pg_temp.calls('_complete_runs') - :completes0, 1::bigint, 'one count-off, no completion attempt');

-- TEST: completing the last step completes the run, and there is no start attempt (no
-- step is left to start)
select count(*) from pgflow_tests.start_and_complete_task(:'r', 'second', 0, '2'::jsonb);
select pg_temp.calls('_start_ready_steps') as starts1, pg_temp.calls('_complete_runs') as completes1,
       pg_temp.calls('_advance_runs') as advances1 \gset
select count(*) from pgflow_tests.start_and_complete_task(:'r', 'last', 0, '3'::jsonb);
select is((select status from pgflow.runs where run_id = :'r'), 'completed', 'the run completed');
select is(pg_temp.calls('_start_ready_steps') - :starts1, 0::bigint, 'no start attempt');
select is(pg_temp.calls('_complete_runs') - :completes1, 1::bigint, 'one completion');
select is(pg_temp.calls('_advance_runs') - :advances1, 0::bigint,
  'the run completed as its last step was counted off: nothing left to advance');

select * from finish();
rollback;
