begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a started run and a failed run of the sequential flow
select pgflow_tests.setup_flow('sequential');
select run_id as started from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as failed from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._fail_run(:'failed', 'boom');

-- TEST: the result names the run, the status it is in, changed false and why
select results_eq(
  format($$ select m.* from pgflow.runs as r, pgflow._moved_on(r, 'paused') as m where r.run_id = %L $$, :'started'),
  format($$ values (%L::uuid, 'started'::text, false, 'run is started, not paused: nothing done'::text) $$, :'started'),
  'a started run expected paused: (run_id, started, false, "run is started, not paused: nothing done")'
);
select results_eq(
  format($$ select m.* from pgflow.runs as r, pgflow._moved_on(r, 'started') as m where r.run_id = %L $$, :'failed'),
  format($$ values (%L::uuid, 'failed'::text, false, 'run is failed, not started: nothing done'::text) $$, :'failed'),
  'a failed run expected started: (run_id, failed, false, "run is failed, not started: nothing done")'
);

-- TEST: the runs are left as they were
select results_eq(
  $$ select status from pgflow.runs order by status $$,
  $$ values ('failed'::text), ('started') $$,
  'the runs keep their statuses'
);

select * from finish();
rollback;
