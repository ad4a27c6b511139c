begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow with 3 attempts; the task claimed by worker 1111...
select pgflow.create_flow('retrying', max_attempts => 3, base_delay => 1);
select pgflow.add_step('retrying', 'only');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'retrying', 'x');
select run_id as run from pgflow.start_flow('retrying', '{}'::jsonb) \gset
select attempts_count as attempt
from pgflow.read_and_start_tasks('retrying', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset
select max(id) as last_id from pgflow.run_events \gset

-- TEST: the failed first attempt, to be retried: one task:failed row with the task's key,
-- details {attempt 1, error_message, retry true}, by the worker
select is((select outcome from pgflow.fail_tasks(array[:'run']::uuid[], array['only'], array[0], array['timeout'],
                                                 array[:attempt])), 'retried', 'precondition: the task is retried');
select results_eq(
  format($$select run_id, step_slug, task_index, event, actor, reason, details from pgflow.run_events
           where id > %s order by id$$, :last_id),
  format($$values (%L::uuid, 'only'::text, 0, 'task:failed'::text,
                   'worker:11111111-1111-1111-1111-111111111111'::text, null::text,
                   '{"attempt": 1, "error_message": "timeout", "retry": true}'::jsonb)$$, :'run'),
  'task:failed {attempt: 1, error_message: timeout, retry: true} by worker:1111..., nothing else'
);

-- TEST: the second attempt's failure is recorded with attempt 2
select pgflow_tests.make_visible('retrying');
select attempts_count as attempt2
from pgflow.read_and_start_tasks('retrying', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset
select count(*) from pgflow.fail_task(:'run', 'only', 0, 'timeout again', :attempt2);
select results_eq(
  format($$select details from pgflow.run_events where run_id = %L and event = 'task:failed' order by id$$, :'run'),
  $$values ('{"attempt": 1, "error_message": "timeout", "retry": true}'::jsonb),
           ('{"attempt": 2, "error_message": "timeout again", "retry": true}')$$,
  'one task:failed per failed attempt'
);

select * from finish();
rollback;
