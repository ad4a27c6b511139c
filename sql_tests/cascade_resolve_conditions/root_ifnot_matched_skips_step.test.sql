begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a root step forbidden for {"test": true}
select pgflow.create_flow('cond');
select pgflow.add_step('cond', 'notify', forbidden_input_pattern => '{"test": true}');
select run_id as run_skip from pgflow.start_flow('cond', '{"test": true, "user": 1}'::jsonb) \gset
select run_id as run_go from pgflow.start_flow('cond', '{"test": false, "user": 1}'::jsonb) \gset

-- TEST: input containing the forbidden pattern -> skipped
select results_eq(
  format($$select status, skip_reason from pgflow.step_states where run_id = %L$$, :'run_skip'),
  $$values ('skipped'::text, 'condition_unmet'::text)$$,
  'a step whose forbidden pattern is contained in the input is skipped'
);

-- TEST: input not containing it -> started
select is(
  (select status from pgflow.step_states where run_id = :'run_go'),
  'started',
  'a step whose forbidden pattern is not contained in the input is started'
);

select * from finish();
rollback;
