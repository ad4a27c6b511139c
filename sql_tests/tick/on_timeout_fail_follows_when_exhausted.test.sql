begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: two flows: gate (waits for "approved" 60 s, on_timeout fail) with when_exhausted
-- skip, or skip-cascade; gate -> child; other is an independent root step.
select pgflow.create_flow('ws', max_attempts => 1);
select pgflow.add_step('ws', 'gate', when_exhausted => 'skip');
select pgflow.add_wait('ws', 'gate', 'approved', timeout => 60);
select pgflow.add_step('ws', 'child', array['gate']);
select pgflow.create_flow('wc', max_attempts => 1);
select pgflow.add_step('wc', 'gate', when_exhausted => 'skip-cascade');
select pgflow.add_wait('wc', 'gate', 'approved', timeout => 60);
select pgflow.add_step('wc', 'child', array['gate']);
select pgflow.add_step('wc', 'other');
select run_id as skip_run from pgflow.start_flow('ws', '{}'::jsonb) \gset
select run_id as cascade_run from pgflow.start_flow('wc', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second';

-- TEST: one tick fires both
select results_eq($$select * from pgflow.tick()$$, $$values (true, 2, 0, 0, 0, 0)$$, 'tick fires both waits');

-- TEST: when_exhausted skip: the step is skipped (timed_out, error kept), its dependent runs without it
select results_eq(
  format($$select status, skip_reason, error_message from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'skip_run'),
  $$values ('skipped'::text, 'timed_out'::text, 'Wait for signal ''approved'' timed out after 60 seconds'::text)$$,
  'skip: gate skipped with skip_reason timed_out and the timeout error');
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'skip_run'),
  $$values ('started'::text, 1)$$, 'skip: the run goes on, one step left');
select results_eq(
  format($$select step_slug, input from pgflow_tests.start_task(%L, 'child')$$, :'skip_run'),
  $$values ('child'::text, '{}'::jsonb)$$, 'skip: child starts without gate''s output');
select pgflow.complete_task(:'skip_run', 'child', 0, '1'::jsonb);
select is((select status from pgflow.runs where run_id = :'skip_run'), 'completed', 'skip: the run completes');
select is((select count(*)::int from pgflow.run_events where run_id = :'skip_run' and event in ('step:failed', 'run:failed')), 0,
  'skip: no step:failed or run:failed event');

-- TEST: when_exhausted skip-cascade: the step and its subtree are skipped, the rest runs
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states where run_id = %L order by step_slug$$, :'cascade_run'),
  $$values ('child'::text, 'skipped'::text, 'dependency_skipped'::text), ('gate', 'skipped', 'timed_out'),
           ('other', 'started', null)$$,
  'skip-cascade: gate skipped (timed_out), child skipped (dependency_skipped), other runs');
select is((select remaining_steps from pgflow.runs where run_id = :'cascade_run'), 1,
  'skip-cascade: one step left (other)');
select pgflow_tests.start_and_complete_task(:'cascade_run', 'other', 0, '"o"'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'cascade_run'),
  $$values ('completed'::text, 0, '{"other": "o"}'::jsonb)$$, 'skip-cascade: the run completes with other''s output');
select results_eq(
  format($$select outcome from pgflow.wait_states where run_id in (%L, %L)$$, :'skip_run', :'cascade_run'),
  $$values ('timed_out'::text), ('timed_out')$$, 'both waits are recorded as timed_out');

select * from finish();
rollback;
