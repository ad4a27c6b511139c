begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a (skipped: condition unmet), b -> c
select pgflow.create_flow('partial', max_attempts => 1);
select pgflow.add_step('partial', 'a', required_input_pattern => '{"run_a": true}');
select pgflow.add_step('partial', 'b');
select pgflow.add_step('partial', 'c', array['a', 'b']);
select run_id from pgflow.start_flow('partial', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'b', 0, '"from b"');

-- TEST: a skipped dependency has no key at all
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'a'),
  'skipped',
  'precondition: dependency a is skipped'
);
select is(pgflow._dependency_outputs(:'run_id', 'partial', 'c'), '{"b": "from b"}'::jsonb, 'only the completed dependency is in it');
select ok(not pgflow._dependency_outputs(:'run_id', 'partial', 'c') ? 'a', 'the skipped dependency is absent, not null');

-- TEST: unknown run or step: {}
select is(
  pgflow._dependency_outputs('00000000-0000-0000-0000-000000000000', 'partial', 'c'),
  '{}'::jsonb,
  '{} for an unknown run'
);
select is(pgflow._dependency_outputs(:'run_id', 'partial', 'no_such_step'), '{}'::jsonb, '{} for an unknown step');

select * from finish();
rollback;
