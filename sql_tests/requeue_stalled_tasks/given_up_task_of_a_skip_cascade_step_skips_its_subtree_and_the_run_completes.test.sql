begin;
select plan(6);

-- when_exhausted 'skip-cascade' on a task given up on after 3 requeues: the step and its
-- dependents are skipped, an unrelated started task is left alone, and the run completes
-- when that task completes.
-- SETUP: flaky (skip-cascade) -> after; other, an independent root. Both root tasks
-- started; only flaky's, requeued 3 times already, stalls.
select pgflow_tests.reset_db();
select pgflow.create_flow('stall', max_attempts => 10, timeout => 60);
select pgflow.add_step('stall', 'flaky', when_exhausted => 'skip-cascade');
select pgflow.add_step('stall', 'after', array['flaky']);
select pgflow.add_step('stall', 'other');
select run_id as run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
update pgflow.step_tasks set requeued_count = 3 where run_id = :'run_id' and step_slug = 'flaky';
select count(*) from pgflow_tests.read_and_start('stall', 1, 2);
select pgflow_tests.backdate_started_tasks(interval '95 seconds', 'flaky');

-- TEST: flaky is given up on; flaky and after are skipped; other is untouched
select is(pgflow.requeue_stalled_tasks(), 0, 'nothing requeued');
select results_eq(
  format($$select step_slug, status, permanently_stalled_at is not null from pgflow.step_tasks
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('flaky'::text, 'failed'::text, true), ('other', 'started', false)$$,
  'flaky''s task failed and stamped; other''s task still started');
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'skipped'::text, 'dependency_skipped'::text),
           ('flaky', 'skipped', 'handler_failed'),
           ('other', 'started', null)$$,
  'flaky skipped (handler_failed), after skipped with it (dependency_skipped)');
select is(status, 'started', 'the run is not failed')
from pgflow.runs where run_id = :'run_id';

-- TEST: other completes and so does the run
select pgflow.complete_task(:'run_id', 'other', 0, '"ok"'::jsonb);
select is(status, 'completed', 'the run completes')
from pgflow.runs where run_id = :'run_id';
select is(pgflow_tests.queue_count('stall', 'q'), 0::bigint, 'no message left in the queue');

select * from finish();
rollback;
