begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: prep -> gate (waits for "approved", no handler) -> after.
select pgflow.create_flow('nh', max_attempts => 1);
select pgflow.add_step('nh', 'prep');
select pgflow.add_step('nh', 'gate', array['prep']);
select pgflow.add_wait('nh', 'gate', 'approved', runs_handler => false);
select pgflow.add_step('nh', 'after', array['gate']);
select run_id from pgflow.start_flow('nh', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'prep', 0, '"p"'::jsonb);

-- TEST: gate waits with no task
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'),
  'waiting', 'gate is waiting'
);

-- TEST: the signal completes it with the payload as its output; it never gets a task
select results_eq(
  format($$select status, taken_by_step from pgflow.send_signal(%L, 'approved', '{"by": "bob"}')$$, :'run_id'),
  $$values ('taken'::text, 'gate'::text)$$,
  'the signal is taken by gate'
);
select results_eq(
  format($$select status, output, remaining_tasks, initial_tasks, completed_at is not null
           from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('completed'::text, '{"by": "bob"}'::jsonb, 0, 0, true)$$,
  'gate is completed with the payload as output (no task to do)'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'gate'),
  0, 'gate never had a task'
);

-- TEST: its dependent gets the payload as its input
select results_eq(
  format($$select step_slug, input from pgflow_tests.start_task(%L, 'after')$$, :'run_id'),
  $$values ('after'::text, '{"gate": {"by": "bob"}}'::jsonb)$$,
  'after starts with {"gate": <payload>}'
);
select pgflow.complete_task(:'run_id', 'after', 0, '"a"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"after": "a"}'::jsonb)$$,
  'the run completes'
);
select results_eq(
  format($$select event from pgflow.run_events where run_id = %L and step_slug = 'gate' order by id$$, :'run_id'),
  $$values ('step:waiting'::text), ('signal:taken'), ('step:completed')$$,
  'gate: step:waiting, signal:taken, step:completed (no step:started)'
);

select * from finish();
rollback;
