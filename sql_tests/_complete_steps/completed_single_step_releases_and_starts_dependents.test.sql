begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last; first's task and step completed (rows written as
-- _complete_tasks does)
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '{"x": 1}'
where run_id = :'run_id' and step_slug = 'first';
update pgflow.step_states set status = 'completed', completed_at = now(), remaining_tasks = 0, output = '{"x": 1}'
where run_id = :'run_id' and step_slug = 'first';
select pgflow._complete_steps(array[:'run_id']::uuid[], array['first']);

-- TEST: the single step keeps the output its caller stored
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('completed'::text, 0, '{"x": 1}'::jsonb)$$,
  'first is completed with its output'
);

-- TEST: the dependent is released and started, the run counts down
select results_eq(
  format($$select ss.status, ss.remaining_deps, t.status from pgflow.step_states as ss
           join pgflow.step_tasks as t using (run_id, step_slug) where ss.run_id = %L and ss.step_slug = 'second'$$, :'run_id'),
  $$values ('started'::text, 0, 'queued'::text)$$,
  'second is started with a queued task'
);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 2)$$,
  'the run is started with remaining_steps 2'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'last'),
  'created',
  'last still waits'
);

select * from finish();
rollback;
