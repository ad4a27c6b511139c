begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: two started runs of sequential
select pgflow_tests.setup_flow('sequential');
select run_id as run1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as run2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: an actor of only tabs and newlines names nobody: it is blank like one of spaces
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, E'\t', 'why')$$, :'run1'),
  '22023', null,
  'an actor of a tab raises invalid_parameter_value'
);
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, E' \n ', 'why')$$, :'run2'),
  '22023', null,
  'an actor of spaces and a newline raises invalid_parameter_value'
);

-- TEST: neither run was cancelled
select results_eq(
  format($$select status from pgflow.runs where run_id in (%L, %L)$$, :'run1', :'run2'),
  $$values ('started'::text), ('started')$$,
  'both runs are still started'
);

select * from finish();
rollback;
