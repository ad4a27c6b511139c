begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a flow with a queued task never claimed and a task requeued as stalled (its worker
-- cleared); no actor set
select pgflow.create_flow('two', max_attempts => 3, timeout => 60);
select pgflow.add_step('two', 'never');
select pgflow.add_step('two', 'requeued');
select run_id as run from pgflow.start_flow('two', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'requeued');
update pgflow.step_tasks set queued_at = now() - interval '2 hours', started_at = now() - interval '1 hour'
where run_id = :'run' and step_slug = 'requeued';
select is(pgflow.requeue_stalled_tasks(), 1, 'precondition: requeued');
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', 'kept', true);

-- TEST: returns NULL and leaves the settings as they are for a task with no worker and for
-- an unknown task
select is(pgflow._set_worker_actor(array[:'run'::uuid], array['never'], array[0]), null::text[], 'never claimed: NULL');
select is(pgflow._set_worker_actor(array[:'run'::uuid], array['requeued'], array[0]), null::text[], 'requeued (worker cleared): NULL');
select is(pgflow._set_worker_actor(array[:'run'::uuid], array['never'], array[5]), null::text[], 'unknown task index: NULL');
select is(pgflow._set_worker_actor(array[gen_random_uuid()::uuid], array['never'], array[0]), null::text[], 'unknown run: NULL');
select is(array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['', 'kept'], 'settings unchanged');

select * from finish();
rollback;
