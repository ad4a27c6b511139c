begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "approved" 60 s, on_timeout skip) -> child; other (a root task) -> child.
select pgflow.create_flow('ts', max_attempts => 1);
select pgflow.add_step('ts', 'gate');
select pgflow.add_wait('ts', 'gate', 'approved', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('ts', 'other');
select pgflow.add_step('ts', 'child', array['gate', 'other']);
select run_id from pgflow.start_flow('ts', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';

-- TEST: the timeout skips gate (skip_reason timed_out) as an unmet condition would
select results_eq($$select * from pgflow.tick()$$, $$values (true, 1, 0, 0, 0, 0)$$, 'tick fires the wait');
select results_eq(
  format($$select status, skip_reason, error_message, skipped_at is not null from pgflow.step_states
           where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('skipped'::text, 'timed_out'::text, null::text, true)$$,
  'gate is skipped with skip_reason timed_out (no error)');
select results_eq(
  format($$select status, remaining_deps from pgflow.step_states where run_id = %L and step_slug = 'child'$$, :'run_id'),
  $$values ('created'::text, 1)$$, 'child now waits only for other');

-- TEST: the dependent runs without the skipped step's output
select pgflow_tests.start_and_complete_task(:'run_id', 'other', 0, '"o"'::jsonb);
select results_eq(
  format($$select input from pgflow_tests.start_task(%L, 'child')$$, :'run_id'),
  $$values ('{"other": "o"}'::jsonb)$$, 'child gets other''s output and no gate key');
select pgflow.complete_task(:'run_id', 'child', 0, '"c"'::jsonb);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0)$$, 'the run completes');
select is(
  (select details from pgflow.run_events where run_id = :'run_id' and step_slug = 'gate' and event = 'step:skipped'),
  '{"skip_reason": "timed_out"}'::jsonb, 'step:skipped with skip_reason timed_out');

select * from finish();
rollback;
