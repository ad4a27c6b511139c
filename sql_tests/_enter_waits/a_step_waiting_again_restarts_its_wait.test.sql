begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: gate waits for "go" 60 s (a root step); its wait timed out long ago, and the step
-- was set back to created (as _reopen_run does for retry_run).
select pgflow.create_flow('ra', max_attempts => 1);
select pgflow.add_step('ra', 'gate');
select pgflow.add_wait('ra', 'gate', 'go', timeout => 60);
select pgflow.add_step('ra', 'work');
select run_id from pgflow.start_flow('ra', '{}'::jsonb) \gset
update pgflow.wait_states
set waiting_since = now() - interval '1 day', deadline = now() - interval '1 day' + interval '60 seconds',
    resolved_at = now() - interval '23 hours', outcome = 'timed_out', error_message = 'old'
where run_id = :'run_id';
update pgflow.step_states set status = 'created' where run_id = :'run_id' and step_slug = 'gate';

-- TEST: it waits again in the same row, as a fresh wait
select is(pgflow._enter_waits(:'run_id'), 1, 'gate enters its wait again');
select results_eq(
  format($$select waiting_since = now(), deadline = now() + interval '60 seconds', resolved_at, outcome, signal_id, error_message
           from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values (true, true, null::timestamptz, null::text, null::bigint, null::text)$$,
  'the row is restarted: waiting since now, fresh deadline, unresolved, no error');
select is((select count(*)::int from pgflow.wait_states where run_id = :'run_id'), 1, 'still one row for the step');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'), 'waiting', 'gate waits');

select * from finish();
rollback;
