begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: leaves "done" (completed) and "gone" (skipped by its condition)
select pgflow.create_flow('partial');
select pgflow.add_step('partial', 'done');
select pgflow.add_step('partial', 'gone', required_input_pattern => '{"want_gone": true}');
select run_id from pgflow.start_flow('partial', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'done', 0, '"yes"'::jsonb);

-- TEST: the skipped leaf has no key at all
select is(
  (select output from pgflow.runs where run_id = :'run_id'),
  '{"done": "yes"}'::jsonb,
  'the run output omits the skipped leaf'
);
select ok(
  not ((select output from pgflow.runs where run_id = :'run_id') ? 'gone'),
  'there is no "gone" key (not even null)'
);

select * from finish();
rollback;
