begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow with 2 attempts; the first attempt failed (retried), the second
-- claimed by worker 2222...
select pgflow.create_flow('retrying', max_attempts => 2, base_delay => 1);
select pgflow.add_step('retrying', 'only');
insert into pgflow.workers (worker_id, queue_name, function_name) values
  ('11111111-1111-1111-1111-111111111111', 'retrying', 'x'),
  ('22222222-2222-2222-2222-222222222222', 'retrying', 'x');
select run_id as run from pgflow.start_flow('retrying', '{}'::jsonb) \gset
select attempts_count as attempt
from pgflow.read_and_start_tasks('retrying', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset
select count(*) from pgflow.fail_task(:'run', 'only', 0, 'first', :attempt);
select pgflow_tests.make_visible('retrying');
select attempts_count as attempt2
from pgflow.read_and_start_tasks('retrying', '22222222-2222-2222-2222-222222222222', 10, 30, null) \gset

-- TEST: the last attempt's failure: task:failed {attempt 2, retry false} by the worker that
-- claimed that attempt; the step and run failures follow it
select count(*) from pgflow.fail_task(:'run', 'only', 0, 'second', :attempt2);
select results_eq(
  format($$select event, actor, details from pgflow.run_events
           where run_id = %L and task_index is not null order by id$$, :'run'),
  $$values ('task:failed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text,
            '{"attempt": 1, "error_message": "first", "retry": true}'::jsonb),
           ('task:failed', 'worker:22222222-2222-2222-2222-222222222222',
            '{"attempt": 2, "error_message": "second", "retry": false}')$$,
  'attempt 1 retry true (worker 1111...), attempt 2 retry false (worker 2222...)'
);
select results_eq(
  format($$select event from pgflow.run_events where run_id = %L order by id$$, :'run'),
  $$values ('run:started'::text), ('step:started'), ('task:failed'), ('task:failed'), ('step:failed'), ('run:failed')$$,
  'the task''s failure comes before the step''s and the run''s'
);

select * from finish();
rollback;
