begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow lim limited to 2 runs per key; two holders and three queued runs
select pgflow_tests.limited_flow('lim', 2, 'queue');
select pgflow_tests.keyed_run('lim', 'ck') as holder1 \gset
select pgflow_tests.keyed_run('lim', 'ck') as holder2 \gset
select pgflow_tests.keyed_run('lim', 'ck') as q1 \gset
select pgflow_tests.keyed_run('lim', 'ck') as q2 \gset
select pgflow_tests.keyed_run('lim', 'ck') as q3 \gset

-- TEST: with both slots held, it starts nothing
select is(pgflow._start_queued_runs('lim', 'ck'), 0, 'no free slot: nothing starts');

-- TEST: two slots freed by hand (the holders marked completed without a release): it starts
-- the two oldest queued runs, and returns 2
update pgflow.runs set status = 'completed', completed_at = now(), remaining_steps = 0
where run_id in (:'holder1', :'holder2');
select is(pgflow._start_queued_runs('lim', 'ck'), 2, 'two free slots: two runs start');
select results_eq(
  $$select status from pgflow.runs where status in ('queued', 'started') order by queue_seq$$,
  $$values ('started'::text), ('started'), ('queued')$$,
  'the two oldest start, the third stays queued'
);
select is(pgflow_tests.run_status(:'q3'), 'queued', 'q3 is the one still queued');

-- TEST: a repeated call starts nothing more
select is(pgflow._start_queued_runs('lim', 'ck'), 0, 'a repeated call starts nothing more');

-- TEST: another key's queue is not touched
select pgflow_tests.keyed_run('lim', 'other');
select pgflow_tests.keyed_run('lim', 'other');
select pgflow_tests.keyed_run('lim', 'other') as other_queued \gset
update pgflow.runs set status = 'completed', completed_at = now(), remaining_steps = 0
where run_id in (:'q1', :'q2');
select pgflow._start_queued_runs('lim', 'ck');
select is(pgflow_tests.run_status(:'other_queued'), 'queued', 'starting key ck''s queue leaves key other''s queued run');

select * from finish();
rollback;
