begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: three runs of first -> second -> last: run 1 has "first" finished by hand, run 2
-- every step finished by hand, run 3 nothing
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'r1', 'first', '1');
select pgflow_tests.finish_step(:'r2', 'first', '1');
select pgflow_tests.finish_step(:'r2', 'second', '2');
select pgflow_tests.finish_step(:'r2', 'last', '3');
select pgflow._advance_runs(array[:'r1', :'r2', :'r3']::uuid[]);

-- TEST: run 1's ready step started
select results_eq(
  format($$select ss.status, t.status from pgflow.step_states as ss
           join pgflow.step_tasks as t using (run_id, step_slug)
           where ss.run_id = %L and ss.step_slug = 'second'$$, :'r1'),
  $$values ('started'::text, 'queued'::text)$$,
  'run 1: second is started with a queued task'
);

-- TEST: run 2 completed with its leaf output
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'r2'),
  $$values ('completed'::text, '{"last": 3}'::jsonb)$$,
  'run 2: completed with output {"last": 3}'
);

-- TEST: run 3 is as it was
select results_eq(
  format($$select status, (select count(*)::int from pgflow.step_tasks where run_id = %1$L)
           from pgflow.runs where run_id = %1$L$$, :'r3'),
  $$values ('started'::text, 1)$$,
  'run 3: still started with its one task'
);
select is((select status from pgflow.runs where run_id = :'r1'), 'started', 'run 1 is still started');

select * from finish();
rollback;
