begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: roots "soft" (skipped when exhausted), "hard" (fails the run when exhausted),
-- "ok" (completed), "slow" (started), "later" (created, depends on slow); soft and hard
-- fail, which fails the run and cancels its unfinished work
select pgflow.create_flow('mix', max_attempts => 1);
select pgflow.add_step('mix', 'soft', when_exhausted => 'skip');
select pgflow.add_step('mix', 'hard');
select pgflow.add_step('mix', 'ok');
select pgflow.add_step('mix', 'slow');
select pgflow.add_step('mix', 'later', array['slow']);
select run_id as run from pgflow.start_flow('mix', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run', 'ok');
select count(*) from pgflow_tests.start_task(:'run', 'slow');
select pgflow_tests.start_and_fail_task(:'run', 'soft', 0, 'soft error');
select pgflow_tests.start_and_fail_task(:'run', 'hard', 0, 'hard error');

-- TEST: precondition: finished steps kept their status, the others were cancelled
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run'),
  $$values ('hard'::text, 'failed'::text), ('later', 'cancelled'), ('ok', 'completed'),
           ('slow', 'cancelled'), ('soft', 'skipped')$$,
  'precondition: run failed: hard failed, soft skipped, ok completed, slow and later cancelled'
);

create temp table states_before as select * from pgflow.step_states;
create temp table tasks_before as select * from pgflow.step_tasks;
select pgflow_tests.queue_count('mix', 'a') as archived, pgflow_tests.queue_count('mix', 'q') as queued \gset
select max(id) as last_id from pgflow.run_events \gset

-- TEST: a second call finds nothing unfinished: no row changes, no message moves, no event
select lives_ok(format($$select pgflow._cancel_unfinished_work(array[%L]::uuid[])$$, :'run'), 'second call');
select set_eq('select * from pgflow.step_states', 'select * from states_before', 'step states unchanged (failed, skipped, completed left)');
select set_eq('select * from pgflow.step_tasks', 'select * from tasks_before', 'tasks unchanged');
select is(pgflow_tests.queue_count('mix', 'a'), :archived::bigint, 'archive unchanged');
select is(pgflow_tests.queue_count('mix', 'q'), :queued::bigint, 'queue unchanged');
select is((select count(*)::int from pgflow.run_events where id > :last_id), 0, 'no event recorded');

select * from finish();
rollback;
