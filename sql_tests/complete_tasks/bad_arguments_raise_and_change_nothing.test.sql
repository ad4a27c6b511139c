begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: a started task, a 1 kB payload limit
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'first');
select set_config('pgflow.max_payload_bytes', '1kB', true);

-- TEST: arrays of different lengths and NULL keys raise
select throws_ok(
  format($$select * from pgflow.complete_tasks(array[%L]::uuid[], array['first'], array[0, 1], array['1']::jsonb[])$$, :'run'),
  '22023',
  'complete_tasks: run_ids, step_slugs, task_indexes, outputs and attempts must have the same length (got 1, 1, 2, 1 and NULL)',
  'arrays of different lengths raise invalid_parameter_value'
);
select throws_ok(
  $$select * from pgflow.complete_tasks(array[null]::uuid[], array['first'], array[0], array['1']::jsonb[])$$,
  '22004',
  'complete_tasks: run_ids, step_slugs and task_indexes may not contain NULL',
  'a NULL key raises null_value_not_allowed'
);
-- TEST: an oversized output is refused for its own report; nothing is written
select results_eq(
  format($$select status, outcome, reason from pgflow.complete_tasks(array[%L]::uuid[], array['first'], array[0],
      array[to_jsonb(repeat('x', 2000))])$$, :'run'),
  $$values ('started'::text, 'refused'::text, 'payload_too_large'::text)$$,
  'an oversized output is refused with payload_too_large'
);
select is((select status from pgflow.step_tasks where run_id = :'run'), 'started', 'the task is still started');
select is((select remaining_steps from pgflow.runs where run_id = :'run'), 3, 'the run is unchanged');

-- TEST: empty (or NULL) arrays do nothing
select is((select count(*)::int from pgflow.complete_tasks('{}', '{}', '{}', '{}')), 0, 'empty arrays return nothing');
select is((select count(*)::int from pgflow.complete_tasks(null, null, null, null)), 0, 'NULL arrays return nothing');

select * from finish();
rollback;
