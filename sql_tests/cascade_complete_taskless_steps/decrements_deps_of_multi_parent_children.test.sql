begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: root map "items" and root single "other" both feed "joiner"
select pgflow.create_flow('join_flow');
select pgflow.add_step('join_flow', 'items', step_type => 'map');
select pgflow.add_step('join_flow', 'other');
select pgflow.add_step('join_flow', 'joiner', array['items', 'other']);
select run_id from pgflow.start_flow('join_flow', '[]'::jsonb) \gset

-- TEST: the empty map completed inside start_flow and released one dep of joiner
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'items'),
  'completed',
  'the empty root map is completed'
);
select results_eq(
  format($$select status, remaining_deps, initial_tasks
           from pgflow.step_states where run_id = %L and step_slug = 'joiner'$$, :'run_id'),
  $$values ('created'::text, 1, 1)$$,
  'the child with two parents has remaining_deps decremented once and keeps initial_tasks 1'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  2,
  'remaining_steps counts other and joiner'
);

select * from finish();
rollback;
