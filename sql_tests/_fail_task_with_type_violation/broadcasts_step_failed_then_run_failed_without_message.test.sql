begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: producer -> mapper (map) -> reducer; producer produced a string
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'producer');
select pgflow._fail_task_with_type_violation(t, 'mapper', '"text"', 'string')
from pgflow.step_tasks as t where t.run_id = :'run_id' and t.step_slug = 'producer';

-- TEST: step:failed, then run:failed
select is(
  pgflow_tests.run_events(:'run_id'),
  array['run:started', 'step:producer:started', 'step:producer:failed', 'run:failed'],
  'step:producer:failed comes before run:failed'
);
select is(
  pgflow_tests.event_payload(:'run_id', 'step:producer:failed') ->> 'error_message',
  '[TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced string',
  'step:failed carries the step''s error'
);
select ok(
  not pgflow_tests.event_payload(:'run_id', 'run:failed') ? 'error_message',
  'run:failed has no error_message'
);

select * from finish();
rollback;
