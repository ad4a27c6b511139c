begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a fails, the run fails, root_b and last are cancelled
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'root_a');
create temp table snapshot as
select (select to_jsonb(r) from pgflow.runs as r where r.run_id = :'run_id') as run,
       (select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s) as steps,
       (select jsonb_agg(to_jsonb(t) order by t.step_slug) from pgflow.step_tasks as t) as tasks,
       (select count(*) from pgflow.run_events) as events,
       pgflow_tests.queue_count('two_roots') as queued;

-- TEST: without resetting failed steps, a run holding a failed step is not reopened
select is(pgflow._reopen_run(:'run_id', false), false, '_reopen_run returns false');

-- TEST: and nothing changed: the cancelled steps stay cancelled, the run failed
select is((select to_jsonb(r) from pgflow.runs as r where r.run_id = :'run_id'), (select run from snapshot),
  'the run is unchanged (still failed)');
select is((select jsonb_agg(to_jsonb(s) order by s.step_slug) from pgflow.step_states as s), (select steps from snapshot),
  'the step states are unchanged (root_a failed, root_b and last cancelled)');
select is((select jsonb_agg(to_jsonb(t) order by t.step_slug) from pgflow.step_tasks as t), (select tasks from snapshot),
  'the tasks are unchanged');
select is(
  array[(select count(*) from pgflow.run_events), pgflow_tests.queue_count('two_roots')],
  array[(select events from snapshot), (select queued from snapshot)],
  'no event written, no message sent');

select * from finish();
rollback;
