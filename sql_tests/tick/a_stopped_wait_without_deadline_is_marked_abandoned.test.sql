begin;
select plan(4);
select pgflow_tests.reset_db();

-- The contract (pgflow.wait_states, pgflow.tick): tick "marks abandoned the waits whose step
-- stopped waiting another way" ("abandoned: its run ended, an operator skipped it"), so that
-- get_run_waits does not show a wait as open for a step that no longer waits.

-- SETUP: gate waits for "go" with no timeout (deadline NULL); one run cancelled, in another
-- gate is skipped by an operator.
select pgflow.create_flow('nd', max_attempts => 1);
select pgflow.add_step('nd', 'gate');
select pgflow.add_wait('nd', 'gate', 'go');
select pgflow.add_step('nd', 'work');
select run_id as cancelled_run from pgflow.start_flow('nd', '{}'::jsonb) \gset
select run_id as skipped_run from pgflow.start_flow('nd', '{}'::jsonb) \gset
select count(*) from pgflow.cancel_run(:'cancelled_run', 'alice', null);
select count(*) from pgflow.skip_step(:'skipped_run', 'gate', 'alice', null);
select count(*) from pgflow.tick();

-- TEST: after a tick, neither wait is left open
select is(
  (select outcome from pgflow.wait_states where run_id = :'cancelled_run'), 'abandoned',
  'the wait of the cancelled run (no deadline) is abandoned');
select is(
  (select outcome from pgflow.wait_states where run_id = :'skipped_run'), 'abandoned',
  'the wait of the skipped step (no deadline) is abandoned');
select is(
  (select count(*)::int from pgflow.get_run_waits(:'cancelled_run') where resolved_at is null), 0,
  'get_run_waits shows no open wait for the cancelled run');
select is(
  (select count(*)::int from pgflow.get_run_waits(:'skipped_run') where resolved_at is null), 0,
  'get_run_waits shows no open wait for the skipped step');

select * from finish();
rollback;
