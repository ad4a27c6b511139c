begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: prep -> gate (waits for "go" 300 s), nap (timer 60 s), remind (timer until
-- input.at), plain (no wait); deep depends on gate. prep is finished by hand (no cascade),
-- so its dependents are created with no pending dependency and nothing has entered a wait.
select pgflow.create_flow('ew', max_attempts => 1);
select pgflow.add_step('ew', 'prep');
select pgflow.add_step('ew', 'gate', array['prep']);
select pgflow.add_wait('ew', 'gate', 'go', timeout => 300);
select pgflow.add_step('ew', 'nap', array['prep']);
select pgflow.add_timer('ew', 'nap', seconds => 60);
select pgflow.add_step('ew', 'remind', array['prep']);
select pgflow.add_timer('ew', 'remind', until_path => 'input.at');
select pgflow.add_step('ew', 'plain', array['prep']);
select pgflow.add_step('ew', 'deep', array['gate']);
select pgflow.add_wait('ew', 'deep', 'go');
select run_id from pgflow.start_flow('ew', '{"at": "2099-01-01T00:00:00Z"}'::jsonb) \gset
select pgflow_tests.finish_step(:'run_id', 'prep', '"p"'::jsonb);
select max(id) as mark from pgflow.run_events \gset

-- TEST: the three ready steps with a wait start waiting; the count is returned
select is(pgflow._enter_waits(:'run_id'), 3, '_enter_waits returns 3');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L and step_slug <> 'prep'
           order by step_slug$$, :'run_id'),
  $$values ('deep'::text, 'created'::text), ('gate', 'waiting'), ('nap', 'waiting'), ('plain', 'created'),
           ('remind', 'waiting')$$,
  'gate, nap, remind wait; plain (no wait) and deep (a pending dependency) are left created');

-- TEST: their waits start now: deadline now + timeout / now + seconds / NULL until read
select results_eq(
  format($$select step_slug, waiting_since = now(), deadline - now(), resolved_at, outcome
           from pgflow.wait_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, true, interval '300 seconds', null::timestamptz, null::text),
           ('nap', true, interval '60 seconds', null, null),
           ('remind', true, null, null, null)$$,
  'gate: deadline +300 s; nap: due +60 s; remind: deadline NULL (read later by _resolve_waits)');

-- TEST: no task, no message for a waiting step
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug <> 'prep'), 0, 'no task');
select is(pgflow_tests.queue_count('ew'), 1::bigint, 'only prep''s message is in the queue');

-- TEST: step:waiting per step, step_index order, with its details
select results_eq(
  format($$select step_slug, event, details from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'run_id', :'mark'),
  $$values ('gate'::text, 'step:waiting'::text, jsonb_build_object('signal_name', 'go', 'deadline', now() + interval '300 seconds')),
           ('nap', 'step:waiting', jsonb_build_object('deadline', now() + interval '60 seconds')),
           ('remind', 'step:waiting', '{"until_path": "input.at"}'::jsonb)$$,
  'step:waiting for gate (name, deadline), nap (deadline), remind (until_path)');

-- TEST: a repeated call finds none
select is(pgflow._enter_waits(:'run_id'), 0, 'a second call enters nothing');

-- TEST: a run that is not started enters nothing
select run_id as paused from pgflow.start_flow('ew', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'paused', 'alice', null);
select pgflow_tests.finish_step(:'paused', 'prep', '"p"'::jsonb);
select is(pgflow._enter_waits(:'paused'), 0, 'a paused run: nothing enters a wait');
select is((select count(*)::int from pgflow.wait_states where run_id = :'paused'), 0, 'and no wait row');

select * from finish();
rollback;
