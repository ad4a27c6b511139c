begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a (requires {"x": 1}) -> b (requires {"a": "anything"}) -> c (no condition)
-- a is skipped in round 1; b becomes ready with input {} and is skipped in round 2.
select pgflow.create_flow('rounds');
select pgflow.add_step('rounds', 'a', required_input_pattern => '{"x": 1}');
select pgflow.add_step('rounds', 'b', array['a'], required_input_pattern => '{"a": "anything"}');
select pgflow.add_step('rounds', 'c', array['b']);
select run_id from pgflow.start_flow('rounds', '{"x": 2}'::jsonb) \gset

-- TEST: both conditional steps are skipped within start_flow
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('a'::text, 'skipped'::text, 'condition_unmet'::text),
           ('b', 'skipped', 'condition_unmet'),
           ('c', 'started', null)$$,
  'skips repeat until nothing changes: a then b are skipped, c runs'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'each skip decremented remaining_steps exactly once'
);
select is(
  (select remaining_deps from pgflow.step_states where run_id = :'run_id' and step_slug = 'c'),
  0,
  'c has no remaining dependency'
);
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'c')),
  '{}'::jsonb,
  'c gets an empty input'
);

select * from finish();
rollback;
