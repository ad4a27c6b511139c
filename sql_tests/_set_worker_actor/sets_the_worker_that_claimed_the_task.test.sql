begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow; the task claimed by worker 2222...; no actor set, a reason set
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
insert into pgflow.workers (worker_id, queue_name, function_name)
values ('22222222-2222-2222-2222-222222222222', 'one', 'x');
select run_id as run from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('one', '22222222-2222-2222-2222-222222222222', 10, 30, null);
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', 'stale reason', true);

-- TEST: sets pgflow.actor to worker:<its worker>, unsets the reason, returns the previous
-- {actor, reason}
select is(pgflow._set_worker_actor(array[:'run'::uuid], array['only'], array[0]), array['', 'stale reason'], 'returns the previous {actor, reason}');
select is(array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['worker:22222222-2222-2222-2222-222222222222', ''], 'actor worker:2222..., reason unset');

-- TEST: the events that follow are the worker's (a transition with no actor of its own:
-- _fail_run)
select pgflow._fail_run(:'run', 'boom');
select is((select actor from pgflow.run_events where run_id = :'run' and event = 'run:failed'),
  'worker:22222222-2222-2222-2222-222222222222', 'a change now is attributed to the worker');

select * from finish();
rollback;
