begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP
select pgflow.ensure_flow_compiled('limited', '{"options": {"concurrencyLimit": 2},
  "steps": [{"slug": "first", "stepType": "single", "dependencies": [], "options": {"maxInFlight": 3}}]}'::jsonb);
create temp table before_flows as select * from pgflow.flows;
create temp table before_steps as select * from pgflow.steps;

-- TEST: each bad value raises a clear error (a valid change in the same call is not applied)
select throws_ok(
  $$select pgflow.sync_flow_options('limited', '{"options": {"maxAttempts": 9, "concurrencyLimit": 0},
      "steps": [{"slug": "first"}]}'::jsonb)$$,
  '23514', 'Option concurrency_limit must be >= 1 (got 0)', 'concurrencyLimit 0');
select throws_ok(
  $$select pgflow.sync_flow_options('limited', '{"options": {"runTimeout": -5}, "steps": [{"slug": "first"}]}'::jsonb)$$,
  '23514', 'Option run_timeout must be >= 1 (got -5)', 'a negative runTimeout');
select throws_ok(
  $$select pgflow.sync_flow_options('limited', '{"options": {"timeout": 99},
      "steps": [{"slug": "first", "options": {"maxInFlight": 0}}]}'::jsonb)$$,
  '23514', 'Option max_in_flight must be >= 1 (got 0)', 'maxInFlight 0');
select throws_ok(
  $$select pgflow.sync_flow_options('limited', '{"options": {"onLimit": "drop"}, "steps": [{"slug": "first"}]}'::jsonb)$$,
  '23514', 'Invalid on_limit ''drop'' for flow ''limited'' (expected queue or reject)', 'an unknown onLimit');
select throws_ok(
  $$select pgflow.sync_flow_options('limited', '{"options": {"onLimit": 1}, "steps": [{"slug": "first"}]}'::jsonb)$$,
  '23514', 'Invalid on_limit ''1'' for flow ''limited'' (expected queue or reject)', 'an onLimit that is not a string');
create function pg_temp.on_limit_error_constraint() returns text language plpgsql as $$
declare v_constraint text;
begin
  perform pgflow.sync_flow_options('limited', '{"options": {"onLimit": "x"}, "steps": [{"slug": "first"}]}'::jsonb);
  return null;
exception when check_violation then
  get stacked diagnostics v_constraint = constraint_name;
  return v_constraint;
end;
$$;
select is(pg_temp.on_limit_error_constraint(), 'pgflow_py_on_limit_is_valid',
  'the onLimit error names the constraint pgflow_py_on_limit_is_valid');
select throws_ok(
  $$select pgflow.sync_flow_options('limited', '{"options": {"concurrencyLimit": "many"}, "steps": [{"slug": "first"}]}'::jsonb)$$,
  '22P02', null, 'a concurrencyLimit that is not an integer');
select throws_ok(
  $$select pgflow.sync_flow_options('limited', '{"steps": [{"slug": "first", "options": {"maxInFlight": 1.5}}]}'::jsonb)$$,
  '22P02', null, 'a maxInFlight that is not an integer');

-- TEST: nothing was written by any of them
select ok(
  (select count(*) = 0 from (select * from pgflow.flows except select * from before_flows) as d)
  and (select count(*) = 0 from (select * from pgflow.steps except select * from before_steps) as d),
  'flows and steps are unchanged');

select * from finish();
rollback;
