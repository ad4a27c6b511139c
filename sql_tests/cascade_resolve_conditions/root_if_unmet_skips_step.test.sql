begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: gate (requires {"role": "admin"}) -> after; plus an unconditional root "other"
select pgflow.create_flow('cond');
select pgflow.add_step('cond', 'gate', required_input_pattern => '{"role": "admin"}');
select pgflow.add_step('cond', 'other');
select pgflow.add_step('cond', 'after', array['gate', 'other']);
select run_id from pgflow.start_flow('cond', '{"role": "user"}'::jsonb) \gset

-- TEST: the unmet step is skipped with reason condition_unmet
select results_eq(
  format($$select status, skip_reason, skipped_at is not null, remaining_tasks, started_at
           from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('skipped'::text, 'condition_unmet'::text, true, null::int, null::timestamptz)$$,
  'the step is skipped (condition_unmet, skipped_at set, never started)'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'gate'),
  0,
  'no task is created for the skipped step'
);

-- TEST: the child loses one dependency
select is(
  (select remaining_deps from pgflow.step_states where run_id = :'run_id' and step_slug = 'after'),
  1,
  'the child''s remaining_deps is decremented for the skipped parent'
);

-- TEST: the run continues and counts the skip once
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  2,
  'remaining_steps is decremented once for the skipped step'
);
select is(
  (select status from pgflow.runs where run_id = :'run_id'),
  'started',
  'the run keeps running'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'other'),
  'started',
  'the other root step is started'
);

select * from finish();
rollback;
