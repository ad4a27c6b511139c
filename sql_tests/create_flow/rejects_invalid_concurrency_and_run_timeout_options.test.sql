begin;
select plan(9);

-- SETUP
select pgflow_tests.reset_db();

-- TEST: concurrency_limit and run_timeout must be >= 1
select throws_ok($$ select pgflow.create_flow('limited', concurrency_limit => 0) $$, '23514',
  'Option concurrency_limit must be >= 1 (got 0)', 'concurrency_limit 0 raises a check violation');
select throws_ok($$ select pgflow.create_flow('limited', concurrency_limit => -3) $$, '23514',
  'Option concurrency_limit must be >= 1 (got -3)', 'a negative concurrency_limit raises');
select throws_ok($$ select pgflow.create_flow('limited', run_timeout => 0) $$, '23514',
  'Option run_timeout must be >= 1 (got 0)', 'run_timeout 0 raises a check violation');

-- TEST: on_limit must be queue or reject; the error names the constraint
select throws_ok($$ select pgflow.create_flow('limited', concurrency_limit => 1, on_limit => 'drop') $$, '23514',
  'Invalid on_limit ''drop'' for flow ''limited'' (expected queue or reject)', 'on_limit drop raises');
select throws_ok($$ select pgflow.create_flow('limited', concurrency_limit => 1, on_limit => 'Queue') $$, '23514',
  'Invalid on_limit ''Queue'' for flow ''limited'' (expected queue or reject)', 'on_limit is case-sensitive');
create function pg_temp.on_limit_error_constraint() returns text language plpgsql as $$
declare v_constraint text;
begin
  perform pgflow.create_flow('limited', on_limit => '');
  return null;
exception when check_violation then
  get stacked diagnostics v_constraint = constraint_name;
  return v_constraint;
end;
$$;
select is(pg_temp.on_limit_error_constraint(), 'pgflow_py_on_limit_is_valid',
  'the on_limit error names the constraint pgflow_py_on_limit_is_valid');

-- TEST: nothing was written
select is(pgflow_tests.row_counts(),
  '{"flows": 0, "steps": 0, "deps": 0, "runs": 0, "step_states": 0, "step_tasks": 0, "queues": 0}'::jsonb,
  'no flow row and no queue were created');

-- TEST: a bad value raises for an existing flow too, which stays as it was
select pgflow.create_flow('limited', concurrency_limit => 2);
select throws_ok($$ select pgflow.create_flow('limited', on_limit => 'nope') $$, '23514', null,
  'an invalid on_limit raises even when the flow exists');
select results_eq(
  $$ select opt_concurrency_limit, opt_on_limit, opt_run_timeout from pgflow.flows where flow_slug = 'limited' $$,
  $$ values (2, 'queue'::text, null::int) $$,
  'the existing flow is unchanged');

select * from finish();
rollback;
