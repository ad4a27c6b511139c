begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: gate waits for "go" 60 s; an operator skips it, tick then abandons the wait.
select pgflow.create_flow('gsa', max_attempts => 1);
select pgflow.add_step('gsa', 'gate');
select pgflow.add_wait('gsa', 'gate', 'go', timeout => 60);
select pgflow.add_step('gsa', 'work');
select run_id from pgflow.start_flow('gsa', '{}'::jsonb) \gset
select count(*) from pgflow.skip_step(:'run_id', 'gate', 'alice', null);
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select count(*) from pgflow.tick();

-- TEST: an abandoned wait did not end with a signal nor a timeout: no row
select is((select outcome from pgflow.wait_states where run_id = :'run_id'), 'abandoned', 'the wait is abandoned');
select is((select count(*)::int from pgflow.get_step_signal(:'run_id', 'gate')), 0, 'get_step_signal: no row');

-- TEST: reads only (STABLE)
select is(
  (select provolatile from pg_proc where oid = 'pgflow.get_step_signal(uuid, text)'::regprocedure), 's',
  'get_step_signal is STABLE');

select * from finish();
rollback;
