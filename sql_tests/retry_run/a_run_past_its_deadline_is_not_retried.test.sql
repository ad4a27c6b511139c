begin;
select plan(12);
select pgflow_tests.reset_db();

-- SETUP: sequential (max_attempts 1): run late fails at first, then its deadline is set one
-- second in the past (it failed before the deadline passed); run timely fails at first with
-- its deadline an hour ahead
select pgflow_tests.setup_flow('sequential');
select run_id as late from pgflow.start_flow('sequential', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select pgflow_tests.start_and_fail_task(:'late', 'first');
select pgflow_tests.pass_deadline(:'late');
select run_id as timely from pgflow.start_flow('sequential', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select pgflow_tests.start_and_fail_task(:'timely', 'first');
select format('a failed run cannot start again: the deadline of run %s passed at %s', run_id, deadline) as refusal
from pgflow.runs where run_id = :'late' \gset
select pgflow_tests.run_snapshot(:'late')::text as before \gset
select is(pgflow_tests.run_status(:'late'), 'failed', 'setup: run late failed');

-- TEST: retry_run of the late run raises 55000 naming the run and its deadline, writes nothing
select throws_ok(
  format($$select * from pgflow.retry_run(%L, 'alice', 'try again')$$, :'late'),
  '55000', :'refusal', 'retry_run raises object_not_in_prerequisite_state: the deadline passed');
select is(pgflow_tests.run_snapshot(:'late')::text, :'before', 'nothing of the run changed (status, steps, tasks, events, messages)');
select is(pgflow_tests.run_status(:'late'), 'failed', 'the run stays failed');

-- TEST: skip_step of its failed step reopens the run too: same refusal, nothing written
select throws_ok(
  format($$select * from pgflow.skip_step(%L, 'first', 'alice', 'skip it')$$, :'late'),
  '55000', :'refusal', 'skip_step of the failed step raises the same error');
select is(pgflow_tests.run_snapshot(:'late')::text, :'before', 'skip_step changed nothing');

-- TEST: complete_step of its failed step likewise
select throws_ok(
  format($$select * from pgflow.complete_step(%L, 'first', '"by hand"'::jsonb, 'alice', 'done by hand')$$, :'late'),
  '55000', :'refusal', 'complete_step of the failed step raises the same error');
select is(pgflow_tests.run_snapshot(:'late')::text, :'before', 'complete_step changed nothing');
select is(
  (select count(*) from pgflow.run_events where run_id = :'late'
   and event in ('run:retried', 'step:reset', 'step:skipped', 'step:completed')),
  0::bigint, 'no retry, reset, skip or completion event was recorded');

-- TEST: with its deadline ahead, the other run is retried
select results_eq(
  format($$select run_id, status, changed from pgflow.retry_run(%L, 'alice', 'try again')$$, :'timely'),
  format($$values (%L::uuid, 'started'::text, true)$$, :'timely'),
  'retry_run starts a failed run whose deadline is ahead');
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'timely' and step_slug = 'first' and status = 'queued'),
  1, 'its failed step has a new queued task');
select is(
  (select count(*) from pgflow.run_events where run_id = :'timely' and event = 'run:retried'),
  1::bigint, 'run:retried is recorded for it');

select * from finish();
rollback;
