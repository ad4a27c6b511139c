begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: first completed once
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"original"'::jsonb);

-- TEST: a second complete with another output changes nothing
select lives_ok(
  format($$select * from pgflow.complete_task(%L, 'first', 0, '"duplicate"'::jsonb)$$, :'run_id'),
  'a duplicate complete_task does not raise'
);
select is(
  (select output from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  '"original"'::jsonb,
  'the task keeps its first output'
);
select is(
  (select output from pgflow.step_states where run_id = :'run_id' and step_slug = 'first'),
  '"original"'::jsonb,
  'the step keeps its first output'
);
select results_eq(
  format($$select remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values (2)$$,
  'remaining_steps is decremented only once'
);
select results_eq(
  format($$select step_slug, remaining_deps, (select count(*)::int from pgflow.step_tasks t
             where t.run_id = s.run_id and t.step_slug = s.step_slug)
           from pgflow.step_states s where run_id = %L and step_slug in ('second', 'last')
           order by step_slug$$, :'run_id'),
  $$values ('last'::text, 1, 0), ('second', 0, 1)$$,
  'dependents are released once and no duplicate task is created'
);

select * from finish();
rollback;
