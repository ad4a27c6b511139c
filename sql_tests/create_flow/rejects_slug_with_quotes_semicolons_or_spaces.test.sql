begin;
select plan(7);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: characters that could break queue names or SQL are rejected
select throws_ok($$ select pgflow.create_flow('it''s') $$, '23514', null,
  'a single quote in the slug raises a check violation');
select throws_ok($$ select pgflow.create_flow('say"hi"') $$, '23514', null,
  'double quotes in the slug raise a check violation');
select throws_ok($$ select pgflow.create_flow('x; drop table pgflow.flows; --') $$, '23514', null,
  'a semicolon (SQL injection attempt) raises a check violation');
select throws_ok($$ select pgflow.create_flow('my flow') $$, '23514', null,
  'a space in the slug raises a check violation');
select throws_ok($$ select pgflow.create_flow('my-flow') $$, '23514', null,
  'a hyphen in the slug raises a check violation');
select has_table('pgflow', 'flows', 'pgflow.flows still exists after the injection attempt');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

select * from finish();
rollback;
