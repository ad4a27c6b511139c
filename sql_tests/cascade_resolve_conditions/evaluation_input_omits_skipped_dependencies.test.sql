begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a (skipped by its condition), b -> c forbids {"a": null}
-- If skipped deps appeared as null, c's forbidden pattern would match.
select pgflow.create_flow('omit');
select pgflow.add_step('omit', 'a', required_input_pattern => '{"run_a": true}');
select pgflow.add_step('omit', 'b');
select pgflow.add_step('omit', 'c', array['a', 'b'], forbidden_input_pattern => '{"a": null}');
select run_id from pgflow.start_flow('omit', '{"run_a": false}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'b', 0, '"b done"'::jsonb);

-- TEST: c is evaluated against {"b": "b done"} only
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'a'),
  'skipped',
  'a is skipped'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'c'),
  'started',
  'c runs: the skipped dependency is absent from the evaluation input (not null)'
);
select is(
  (select input from pgflow_tests.start_task(:'run_id', 'c')),
  '{"b": "b done"}'::jsonb,
  'c''s handler input contains only the completed dependency'
);

select * from finish();
rollback;
