begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow "rq" (timeout 60 s): work (a root task, claimed and stalled), gate (waits for
-- "go" 60 s, on_timeout skip), nap (timer 60 s). Both waits past their deadline.
select pgflow.create_flow('rq', max_attempts => 3, timeout => 60);
select pgflow.add_step('rq', 'work');
select pgflow.add_step('rq', 'gate');
select pgflow.add_wait('rq', 'gate', 'go', timeout => 60, on_timeout => 'skip');
select pgflow.add_step('rq', 'nap');
select pgflow.add_timer('rq', 'nap', seconds => 60);
select run_id from pgflow.start_flow('rq', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'work');
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';

-- TEST: tick returns (ran, fired_waits, requeued_tasks)
select results_eq($$select * from pgflow.tick()$$, $$values (true, 2, 1, 0, 0, 0)$$,
  'tick fired two waits and requeued one stalled task');
select results_eq(
  format($$select status, requeued_count from pgflow.step_tasks where run_id = %L and step_slug = 'work'$$, :'run_id'),
  $$values ('queued'::text, 1)$$, 'the stalled task is queued again');
select is(pgflow_tests.visible_count('rq'), 1::bigint, 'its message is visible again');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'skipped'::text), ('nap', 'completed'), ('work', 'started')$$,
  'gate timed out (skipped), nap fired (completed)');

-- TEST: with nothing due and nothing stalled: (true, 0, 0)
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a second tick finds nothing');

-- TEST: signature: tick(max_runs int default 100), SECURITY DEFINER
select is(pgflow_tests.function_signature('tick'),
  'tick(max_runs integer DEFAULT 100) returns TABLE(ran boolean, fired_waits integer, requeued_tasks integer, expired_runs integer, started_queued_runs integer, released_tasks integer)',
  'pgflow.tick(max_runs integer default 100) returns table (ran, fired_waits, requeued_tasks, expired_runs, started_queued_runs, released_tasks)');

select * from finish();
rollback;
