begin;
select plan(4);

-- SETUP: stored flow has two steps; not local; allow_data_loss left at its default (false)
select pgflow_tests.reset_db();
select pgflow.create_flow('drifted');
select pgflow.add_step('drifted', 'a');
select pgflow.add_step('drifted', 'b', array['a']);
select pgflow.start_flow('drifted', '{}');

-- TEST: the worker's shape (first) against the DB shape (second)
select is(
  pgflow.ensure_flow_compiled('drifted', pgflow_tests.shape(
    pgflow_tests.shape_step('a'), pgflow_tests.shape_step('b', dependencies => array['a']),
    pgflow_tests.shape_step('c', dependencies => array['b']))),
  jsonb_build_object('status', 'mismatch', 'differences', jsonb_build_array(
    'Step count differs: 3 vs 2',
    'Step at index 2: missing in second shape (first has ''c'')')),
  'a different shape gives status mismatch with the differences (local shape first)');
select results_eq(
  $$ select step_slug from pgflow.steps where flow_slug = 'drifted' order by step_index $$,
  $$ values ('a'::text), ('b') $$,
  'the stored steps are unchanged');
select is((select count(*)::int from pgflow.runs where flow_slug = 'drifted'), 1, 'the run is kept');
select is(pgflow_tests.queue_count('drifted'), 1::bigint, 'the queue and its message are kept');

select * from finish();
rollback;
