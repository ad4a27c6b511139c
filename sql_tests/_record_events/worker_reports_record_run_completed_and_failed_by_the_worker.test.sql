begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow (max_attempts 1); run "ok" claimed by worker 1111..., run "bad"
-- by worker 2222...
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
insert into pgflow.workers (worker_id, queue_name, function_name) values
  ('11111111-1111-1111-1111-111111111111', 'one', 'x'),
  ('22222222-2222-2222-2222-222222222222', 'one', 'x');
select run_id as ok_run from pgflow.start_flow('one', '{}'::jsonb) \gset
select attempts_count as ok_attempt
from pgflow.read_and_start_tasks('one', '11111111-1111-1111-1111-111111111111', 10, 30, null) \gset
select run_id as bad_run from pgflow.start_flow('one', '{}'::jsonb) \gset
select attempts_count as bad_attempt
from pgflow.read_and_start_tasks('one', '22222222-2222-2222-2222-222222222222', 10, 30, null) \gset
select is((select last_worker_id from pgflow.step_tasks where run_id = :'bad_run'),
  '22222222-2222-2222-2222-222222222222'::uuid, 'precondition: each run was claimed by its worker');

-- TEST: the completion reported by worker 1111... completes the run: run:completed by it
select count(*) from pgflow.complete_task(:'ok_run', 'only', 0, '{"ok": true}'::jsonb, :ok_attempt);
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events
           where run_id = %L and step_slug is null order by id$$, :'ok_run'),
  $$values ('run:started'::text, 'app'::text, null::text, null::jsonb),
           ('run:completed', 'worker:11111111-1111-1111-1111-111111111111', null, null)$$,
  'run:completed with actor worker:<the worker that claimed the task>'
);

-- TEST: the failure reported by worker 2222... fails the run: run:failed by it, with the
-- handler's error
select count(*) from pgflow.fail_task(:'bad_run', 'only', 0, 'boom', :bad_attempt);
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events
           where run_id = %L and step_slug is null order by id$$, :'bad_run'),
  $$values ('run:started'::text, 'app'::text, null::text, null::jsonb),
           ('run:failed', 'worker:22222222-2222-2222-2222-222222222222', null, '{"error_message": "boom"}')$$,
  'run:failed with actor worker:<the worker that claimed the task>, details.error_message boom'
);

-- TEST: the worker actor lasts only for the report: a later transition in the same
-- transaction is the system's
select is(coalesce(current_setting('pgflow.actor', true), ''), '', 'pgflow.actor is unset again after the reports');
select run_id as later_run from pgflow.start_flow('one', '{}'::jsonb) \gset
select pgflow._fail_run(:'later_run', 'by hand');
select results_eq(
  format($$select event, actor from pgflow.run_events where run_id = %L and step_slug is null order by id$$, :'later_run'),
  $$values ('run:started'::text, 'app'::text), ('run:failed', 'system')$$,
  'a later run failed by _fail_run is attributed to system, not to the worker');

select * from finish();
rollback;
