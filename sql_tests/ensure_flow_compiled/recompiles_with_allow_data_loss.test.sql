begin;
select plan(5);

-- SETUP: stored flow a -> b with a run; the new shape renames b to c
select pgflow_tests.reset_db();
select pgflow.create_flow('reshaped', max_attempts => 7);
select pgflow.add_step('reshaped', 'a');
select pgflow.add_step('reshaped', 'b', array['a']);
select pgflow.start_flow('reshaped', '{}');

-- TEST: allow_data_loss recreates the flow and reports what differed
select is(
  pgflow.ensure_flow_compiled('reshaped',
    pgflow_tests.shape(pgflow_tests.shape_step('a'), pgflow_tests.shape_step('c', dependencies => array['a'])),
    allow_data_loss => true),
  jsonb_build_object('status', 'recompiled', 'differences',
    jsonb_build_array('Step at index 1: slug differs ''c'' vs ''b''')),
  'the result is status recompiled with the differences');
select results_eq(
  $$ select step_slug from pgflow.steps where flow_slug = 'reshaped' order by step_index $$,
  $$ values ('a'::text), ('c') $$,
  'the flow now has the steps of the new shape');
select is((select count(*)::int from pgflow.runs where flow_slug = 'reshaped'), 0,
  'the old runs were deleted (data loss)');
select is((select opt_max_attempts from pgflow.flows where flow_slug = 'reshaped'), 3,
  'the flow row was recreated from the shape (default options)');
select is(pgflow_tests.queue_count('reshaped'), 0::bigint, 'the queue was recreated empty');

select * from finish();
rollback;
