begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: flow fx: gate waits for "go" 60 s (on_timeout fail, when_exhausted skip); work
-- runs beside it. gate's wait timed out (recorded by hand as _resolve_waits does), and
-- _finish_waits is called for it twice.
select pgflow.create_flow('fx', max_attempts => 1);
select pgflow.add_step('fx', 'gate', when_exhausted => 'skip');
select pgflow.add_wait('fx', 'gate', 'go', timeout => 60);
select pgflow.add_step('fx', 'work');
select run_id from pgflow.start_flow('fx', '{}'::jsonb) \gset
update pgflow.wait_states set resolved_at = now(), outcome = 'timed_out' where run_id = :'run_id';
select pgflow._finish_waits(:'run_id', array['gate']);
select pgflow._finish_waits(:'run_id', array['gate']);

-- TEST: gate is skipped once: the run still counts work as remaining, and stays started
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 1)$$,
  'remaining_steps dropped once (2 -> 1), the run is still started');
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'skipped'::text, 'timed_out'::text), ('work', 'started', null)$$,
  'gate skipped (timed_out), work still started');
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'run_id' and event = 'step:skipped'),
  1,
  'one step:skipped event');

-- SETUP: a second run whose gate was completed by hand before its wait's timeout was
-- recorded (when_exhausted fail on a flow fy)
select pgflow.create_flow('fy', max_attempts => 1);
select pgflow.add_step('fy', 'gate');
select pgflow.add_wait('fy', 'gate', 'go', timeout => 60);
select pgflow.add_step('fy', 'work');
select run_id as run2 from pgflow.start_flow('fy', '{}'::jsonb) \gset
select count(*) from pgflow.complete_step(:'run2', 'gate', '{}'::jsonb, 'alice', null);
update pgflow.wait_states set resolved_at = now(), outcome = 'timed_out' where run_id = :'run2';
select pgflow._finish_waits(:'run2', array['gate']);

-- TEST: the completed step and its run are left alone
select results_eq(
  format($$select status from pgflow.runs where run_id = %L$$, :'run2'),
  $$values ('started'::text)$$,
  'the run is not failed');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run2'),
  $$values ('gate'::text, 'completed'::text), ('work', 'started')$$,
  'gate stays completed, work stays started');

select * from finish();
rollback;
