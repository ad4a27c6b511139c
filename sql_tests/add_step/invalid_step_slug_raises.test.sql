begin;
select plan(10);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('flow_a');

-- TEST: step slugs follow the same rules as flow slugs
select throws_ok($$ select pgflow.add_step('flow_a', '') $$, '23514', null,
  'an empty step slug raises a check violation');
select throws_ok(format($$ select pgflow.add_step('flow_a', %L) $$, repeat('s', 129)), '23514', null,
  'a 129-character step slug raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', '2nd') $$, '23514', null,
  'a step slug starting with a digit raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'run') $$, '23514', null,
  'the reserved step slug run raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'it''s') $$, '23514', null,
  'a quote in the step slug raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'a;b') $$, '23514', null,
  'a semicolon in the step slug raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', 'my step') $$, '23514', null,
  'a space in the step slug raises a check violation');
select throws_ok($$ select pgflow.add_step('flow_a', null) $$, null::char(5), null,
  'a NULL step slug raises');
select throws_like($$ select pgflow.add_step('flow_a', '2nd') $$, '%2nd%',
  'the error quotes the rejected step slug');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 1, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 1}'::jsonb,
  'no step and no dependency row were added');

select * from finish();
rollback;
