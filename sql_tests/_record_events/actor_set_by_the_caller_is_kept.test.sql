begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow with 3 attempts; the task claimed by worker 1111...
select pgflow.create_flow('retrying', max_attempts => 3, base_delay => 1);
select pgflow.add_step('retrying', 'only');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('11111111-1111-1111-1111-111111111111', 'retrying', 'x');
select run_id as run from pgflow.start_flow('retrying', '{}'::jsonb) \gset
select attempts_count as attempt
from pgflow.read_and_start_tasks('retrying', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset

-- TEST: a failure reported while pgflow.actor is set is that actor's, with its reason
select set_config('pgflow.actor', 'dashboard:alice', true), set_config('pgflow.reason', 'marked failed', true);
select count(*) from pgflow.fail_task(:'run', 'only', 0, 'by hand', :attempt);
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events where run_id = %L and task_index = 0$$, :'run'),
  $$values ('task:failed'::text, 'dashboard:alice'::text, 'marked failed'::text,
            '{"attempt": 1, "error_message": "by hand", "retry": true}'::jsonb)$$,
  'task:failed by dashboard:alice, reason marked failed'
);
select is(current_setting('pgflow.actor', true), 'dashboard:alice', 'the caller''s actor is still set after the report');

select * from finish();
rollback;
