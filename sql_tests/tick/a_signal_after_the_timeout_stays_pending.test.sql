begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: flow "late": gate (waits for "go" 60 s, on_timeout continue, no handler) -> again
-- (waits for "go", no handler); work is a root task that keeps the run going.
select pgflow.create_flow('late', max_attempts => 1);
select pgflow.add_step('late', 'work');
select pgflow.add_step('late', 'gate');
select pgflow.add_wait('late', 'gate', 'go', timeout => 60, on_timeout => 'continue', runs_handler => false);
select pgflow.add_step('late', 'again', array['gate']);
select pgflow.add_wait('late', 'again', 'go', runs_handler => false);
select run_id from pgflow.start_flow('late', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select count(*) from pgflow.tick();

-- TEST: the timeout made up no signal: the next wait on the same name keeps waiting
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L and step_slug in ('gate', 'again')
           order by step_slug$$, :'run_id'),
  $$values ('again'::text, 'waiting'::text), ('gate', 'completed')$$,
  'gate went on after its timeout; again waits');
select results_eq(
  format($$select resolved_at, outcome from pgflow.wait_states where run_id = %L and step_slug = 'again'$$, :'run_id'),
  $$values (null::timestamptz, null::text)$$, 'again''s wait is open');
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'another tick does not resolve it');

-- TEST: a real signal, sent after gate timed out, is taken by again (not by gate)
select results_eq(
  format($$select status, taken_by_step from pgflow.send_signal(%L, 'go', '{"real": true}')$$, :'run_id'),
  $$values ('taken'::text, 'again'::text)$$, 'again takes the real signal');
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'again'$$, :'run_id'),
  $$values ('completed'::text, '{"real": true}'::jsonb)$$, 'again completed with its payload');

-- TEST: a signal sent after the timeout with no step left to wait for it is kept pending
select results_eq(
  format($$select status, taken_by_step from pgflow.send_signal(%L, 'go', '{"late": true}')$$, :'run_id'),
  $$values ('pending'::text, null::text)$$, 'a late signal is stored pending, not dropped');
select is((select outcome from pgflow.wait_states where run_id = :'run_id' and step_slug = 'gate'), 'timed_out',
  'gate''s wait stays timed_out');

-- TEST: on_timeout skip: a late signal is stored pending too (the run is still started)
select pgflow.create_flow('late_skip', max_attempts => 1);
select pgflow.add_step('late_skip', 'work');
select pgflow.add_step('late_skip', 'gate');
select pgflow.add_wait('late_skip', 'gate', 'go', timeout => 60, on_timeout => 'skip');
select run_id as skip_run from pgflow.start_flow('late_skip', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'skip_run';
select count(*) from pgflow.tick();
select results_eq(
  format($$select status, taken_by_step, duplicate from pgflow.send_signal(%L, 'go', '{"late": true}')$$, :'skip_run'),
  $$values ('pending'::text, null::text, false)$$, 'skip: the late signal is stored pending');
select results_eq(
  format($$select status, skip_reason from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'skip_run'),
  $$values ('skipped'::text, 'timed_out'::text)$$, 'skip: gate stays skipped');
select is((select count(*)::int from pgflow.signals where run_id = :'skip_run' and status = 'pending'), 1,
  'skip: one pending signal kept');

select * from finish();
rollback;
