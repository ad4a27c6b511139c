begin;
select plan(6);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a root map (when_exhausted skip) over three elements: task 0 failed for good (its
-- message archived by the caller), task 1 started, task 2 queued
select pgflow.create_flow('map_skip', max_attempts => 1);
select pgflow.add_step('map_skip', 'items', step_type => 'map', when_exhausted => 'skip');
select run_id from pgflow.start_flow('map_skip', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 0);
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 1);
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'too slow'
where run_id = :'run_id' and task_index = 0;
select pgflow._archive_task_message(:'run_id', 'items', 0);
delete from realtime.messages;

-- as for a wait that timed out: skip_reason timed_out
select pgflow._skip_exhausted_step(:'run_id', 'items', 'skip', 'timed_out', 'too slow');

-- TEST: the step is skipped with the reason and the error given
select results_eq(
  format($$ select status, skip_reason, error_message from pgflow.step_states
            where run_id = %L and step_slug = 'items' $$, :'run_id'),
  $$ values ('skipped'::text, 'timed_out'::text, 'too slow'::text) $$,
  'items: skipped, timed_out, error kept'
);

-- TEST: the other tasks will not be needed: cancelled, their messages archived
select is(
  (select array_agg(status order by task_index) from pgflow.step_tasks where run_id = :'run_id'),
  array['failed', 'cancelled', 'cancelled'],
  'the failed task stays failed; its started and queued siblings are cancelled'
);
select results_eq(
  $$ select pgflow_tests.queue_count('map_skip'), pgflow_tests.queue_count('map_skip', 'a') $$,
  $$ values (0::bigint, 3::bigint) $$,
  'no message left in the queue, all three archived'
);

-- TEST: step:skipped broadcast with the reason and the error; nothing else (the run is not
-- completed: the caller moves it on)
select is(pgflow_tests.run_events(:'run_id'), array['step:items:skipped'], 'only step:items:skipped is broadcast');
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:items:skipped') @> jsonb_build_object(
    'event_type', 'step:skipped', 'step_slug', 'items', 'status', 'skipped',
    'skip_reason', 'timed_out', 'error_message', 'too slow'),
  'step:skipped carries skip_reason timed_out and the error message'
);
select results_eq(
  format($$ select status, remaining_steps from pgflow.runs where run_id = %L $$, :'run_id'),
  $$ values ('started'::text, 0) $$,
  'remaining_steps 1 -> 0, but the run is still started'
);

select * from finish();
rollback;
