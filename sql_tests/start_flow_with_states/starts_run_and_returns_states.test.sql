begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('two_roots');
create temp table result as select pgflow.start_flow_with_states('two_roots', '{"hello": "world"}') as r;

-- TEST: a run is started and returned with its step states
select is((select count(*)::int from pgflow.runs), 1, 'one run was started');
select is((select r from result),
  pgflow.get_run_with_states((select run_id from pgflow.runs)),
  'the result equals get_run_with_states of the new run');
select is((select r #> '{run,input}' from result), '{"hello": "world"}'::jsonb, 'the run input is stored');
select is(
  (select jsonb_object_agg(s ->> 'step_slug', s ->> 'status')
   from result, jsonb_array_elements(r -> 'steps') as s),
  '{"root_a": "started", "root_b": "started", "last": "created"}'::jsonb,
  'the root steps are already started and the dependent step is created');

select * from finish();
rollback;
