begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._cascade_force_skip_steps(:'run_id', 'second', 'condition_unmet');

-- TEST: a second call skips nothing and changes no counter
select is(
  pgflow._cascade_force_skip_steps(:'run_id', 'second', 'condition_unmet'),
  0,
  'the second call returns 0'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps is decremented only once per step (3 - 2)'
);
select results_eq(
  format($$select step_slug, skip_reason from pgflow.step_states
           where run_id = %L and status = 'skipped' order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'dependency_skipped'::text), ('second', 'condition_unmet')$$,
  'skip reasons are unchanged'
);

select * from finish();
rollback;
