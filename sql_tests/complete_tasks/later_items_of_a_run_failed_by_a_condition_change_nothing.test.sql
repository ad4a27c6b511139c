begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: first -> gated (condition {"first": null}, when_unmet fail); items: a root map of 2
select pgflow.create_flow('gated', max_attempts => 1);
select pgflow.add_step('gated', 'first');
select pgflow.add_step('gated', 'gated_step', array['first'],
  required_input_pattern => '{"first": null}', when_unmet => 'fail');
select pgflow.add_step('gated', 'items', step_type => 'map');
select run_id from pgflow.start_flow('gated', '[1, 2]') \gset
select count(*) from pgflow_tests.read_and_start('gated', 30, 10);

-- TEST: as with complete_task item by item, the first item fails the run through the
-- condition, which cancels the map task, so the map task reported after it in the same call
-- is ignored (run_failed) and changes nothing
select results_eq(
  format($$select step_slug, status, outcome, reason from pgflow.complete_tasks(array[%1$L, %1$L]::uuid[],
      array['first', 'items'], array[0, 0], array['true', '"x"']::jsonb[])$$, :'run_id'),
  $$values ('first'::text, 'completed'::text, 'completed'::text, null::text), ('items', 'cancelled', 'ignored', 'run_failed')$$,
  'first completes; the map task, cancelled by the run failure, is ignored with run_failed'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the condition failed the run');
select results_eq(
  format($$select status, remaining_tasks, output from pgflow.step_states where run_id = %L and step_slug = 'items'$$, :'run_id'),
  $$values ('cancelled'::text, 2, null::jsonb)$$,
  'the map step is cancelled by the run failure; the ignored item wrote no output'
);

select * from finish();
rollback;
