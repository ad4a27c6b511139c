begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: completed, failed and cancelled runs whose deadline then passes; a run whose
-- deadline has not passed; a run without deadline
select pgflow.create_flow('fin', max_attempts => 1);
select pgflow.add_step('fin', 'work');
select run_id as done from pgflow.start_flow('fin', '{}'::jsonb) \gset
select run_id as failed from pgflow.start_flow('fin', '{}'::jsonb) \gset
select run_id as cancelled from pgflow.start_flow('fin', '{}'::jsonb) \gset
select run_id as future from pgflow.start_flow('fin', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select run_id as no_deadline from pgflow.start_flow('fin', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'done', 'work');
select pgflow_tests.start_and_fail_task(:'failed', 'work');
select pgflow.cancel_run(:'cancelled', 'ops', 'test');
select pgflow_tests.pass_deadline(r) from unnest(array[:'done', :'failed', :'cancelled']::uuid[]) as r;
create temp table runs_before as select * from pgflow.runs;
select count(*) as events_before from pgflow.run_events \gset

-- TEST: the tick expires none of them and changes nothing
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick: expired_runs 0');
select set_eq($$select * from pgflow.runs$$, $$select * from runs_before$$, 'every run is as it was');
select is((select count(*) from pgflow.run_events), :'events_before'::bigint, 'no event recorded');

-- TEST: a due run is expired once: a second tick expires nothing more
select run_id as due from pgflow.start_flow('fin', '{}'::jsonb) \gset
select pgflow_tests.pass_deadline(:'due');
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'the first tick expires it');
select count(*) as events_after from pgflow.run_events \gset
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a second tick expires nothing');
select is((select count(*) from pgflow.run_events), :'events_after'::bigint, 'and records nothing');
select is(cardinality(pgflow_tests.expired_events(:'due')), 1, 'one run:expired event');

select * from finish();
rollback;
