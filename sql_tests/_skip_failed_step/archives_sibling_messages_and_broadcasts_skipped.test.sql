begin;
select plan(5);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: a root map (when_exhausted skip) over three elements; task 0 failed for good
-- (message archived by the caller), task 1 started, task 2 queued
select pgflow.create_flow('map_skip', max_attempts => 1);
select pgflow.add_step('map_skip', 'items', step_type => 'map', when_exhausted => 'skip');
select run_id from pgflow.start_flow('map_skip', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 0);
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 1);
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'boom'
where run_id = :'run_id' and task_index = 0;
select pgflow._archive_task_message(:'run_id', 'items', 0);
delete from realtime.messages;
select pgflow._skip_failed_step(ss, s, 'boom')
from pgflow.step_states as ss
join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
where ss.run_id = :'run_id' and ss.step_slug = 'items';

-- TEST: the siblings' messages are archived and the siblings cancelled (nothing stays live)
select results_eq(
  $$select pgflow_tests.queue_count('map_skip'), pgflow_tests.queue_count('map_skip', 'a')$$,
  $$values (0::bigint, 3::bigint)$$,
  'no message left in the queue, all three archived'
);
select is(
  (select array_agg(status order by task_index) from pgflow.step_tasks where run_id = :'run_id'),
  array['failed', 'cancelled', 'cancelled'],
  'the failed task stays failed; its started and queued siblings are cancelled'
);

-- TEST: step:skipped with the error, then the run completes (the map was its only step)
select is(
  pgflow_tests.run_events(:'run_id'),
  array['step:items:skipped', 'run:completed'],
  'step:items:skipped, then run:completed'
);
select ok(
  pgflow_tests.event_payload(:'run_id', 'step:items:skipped') @> jsonb_build_object(
    'event_type', 'step:skipped', 'step_slug', 'items', 'status', 'skipped',
    'skip_reason', 'handler_failed', 'error_message', 'boom'),
  'step:skipped carries skip_reason handler_failed and the error message'
);
select is((select status from pgflow.runs where run_id = :'run_id'), 'completed', 'the run is completed');

select * from finish();
rollback;
