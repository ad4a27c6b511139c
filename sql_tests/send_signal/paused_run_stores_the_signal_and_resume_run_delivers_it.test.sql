begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "go", handler) -> after; a started run, then paused.
select pgflow.create_flow('pz', max_attempts => 1);
select pgflow.add_step('pz', 'gate');
select pgflow.add_wait('pz', 'gate', 'go');
select pgflow.add_step('pz', 'after', array['gate']);
select run_id from pgflow.start_flow('pz', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'run_id', 'alice', 'hold');

-- TEST: a paused run stores the signal pending; its waiting step does not take it
select results_eq(
  format($$select status, taken_by_step, duplicate from pgflow.send_signal(%L, 'go', '{"v": 1}')$$, :'run_id'),
  $$values ('pending'::text, null::text, false)$$,
  'send_signal to a paused run returns the signal pending');
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'),
  'waiting', 'gate still waits');
select results_eq(
  format($$select resolved_at, outcome from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values (null::timestamptz, null::text)$$, 'its wait is open');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id'), 0, 'no task was created');

-- TEST: resume_run: the step takes the signal and its task is queued
select results_eq(
  format($$select status, changed from pgflow.resume_run(%L, 'alice', 'go on')$$, :'run_id'),
  $$values ('started'::text, true)$$, 'resume_run resumes the run');
select results_eq(
  format($$select status, taken_by_step from pgflow.signals where run_id = %L$$, :'run_id'),
  $$values ('taken'::text, 'gate'::text)$$, 'the signal is taken by gate on resume');
select results_eq(
  format($$select ss.status, t.status, pgflow_tests.message_exists('pz', t.message_id)
           from pgflow.step_states as ss join pgflow.step_tasks as t using (run_id, step_slug)
           where ss.run_id = %L and ss.step_slug = 'gate'$$, :'run_id'),
  $$values ('started'::text, 'queued'::text, true)$$,
  'gate started and its task is queued with a message');
select results_eq(
  format($$select payload, timed_out from pgflow.get_step_signal(%L, 'gate')$$, :'run_id'),
  $$values ('{"v": 1}'::jsonb, false)$$, 'the handler reads the signal');

select * from finish();
rollback;
