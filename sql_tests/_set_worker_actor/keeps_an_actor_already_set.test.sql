begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a claimed task; the caller already set actor and reason
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select run_id as run from pgflow.start_flow('one', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'only');
select set_config('pgflow.actor', 'ops-script', true), set_config('pgflow.reason', 'forced', true);

-- TEST: returns NULL and changes nothing
select is(pgflow._set_worker_actor(array[:'run'::uuid], array['only'], array[0]), null::text[], 'returns NULL');
select is(array[current_setting('pgflow.actor', true), current_setting('pgflow.reason', true)],
  array['ops-script', 'forced'], 'actor and reason unchanged');

-- TEST: so a worker's report within it keeps the caller's actor
select count(*) from pgflow.complete_task(:'run', 'only', 0, '{}'::jsonb);
select is((select actor from pgflow.run_events where run_id = :'run' and event = 'run:completed'),
  'ops-script', 'run:completed by ops-script, not by the worker');

select * from finish();
rollback;
