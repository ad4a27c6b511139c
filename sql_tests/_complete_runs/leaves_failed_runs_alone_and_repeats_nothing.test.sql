begin;
select plan(5);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: run 1 finished and completed once; run 2 failed with nothing left
select pgflow.create_flow('one_step');
select pgflow.add_step('one_step', 'only');
select run_id as r1 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('one_step', '{}'::jsonb) \gset
select pgflow_tests.finish_step_keep_run(:'r1', 'only', '1');
select pgflow._complete_runs(array[:'r1']::uuid[]);
select pgflow_tests.finish_step_keep_run(:'r2', 'only', '2');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'r2';

-- TEST: a repeated call changes nothing and broadcasts nothing
update pgflow.runs set output = '"kept"' where run_id = :'r1';
select pgflow._complete_runs(array[:'r1', :'r1']::uuid[]);
select is((select output from pgflow.runs where run_id = :'r1'), '"kept"'::jsonb, 'a completed run is not rewritten');
select is(
  (select count(*)::int from realtime.messages where event = 'run:completed'),
  1,
  'run:completed is broadcast once'
);

-- TEST: a failed run is never completed
select pgflow._complete_runs(array[:'r2']::uuid[]);
select results_eq(
  format($$select status, completed_at, output from pgflow.runs where run_id = %L$$, :'r2'),
  $$values ('failed'::text, null::timestamptz, null::jsonb)$$,
  'a failed run with remaining_steps 0 stays failed'
);
select is(
  pgflow_tests.run_events(:'r2'),
  array['run:started', 'step:only:started'],
  'no run:completed for the failed run'
);

-- TEST: NULL and unknown ids are accepted
select lives_ok(
  $$select pgflow._complete_runs(null), pgflow._complete_runs(array['00000000-0000-0000-0000-000000000000']::uuid[])$$,
  'NULL and unknown run ids do nothing'
);

select * from finish();
rollback;
