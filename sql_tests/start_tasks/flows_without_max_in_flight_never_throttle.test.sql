begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a flow without any max_in_flight (root map over 5) and one with it
select pgflow.create_flow('nolim');
select pgflow.add_step('nolim', 'items', step_type => 'map');
select pgflow.create_flow('lim');
select pgflow.add_step('lim', 'items', step_type => 'map', max_in_flight => 1);
select run_id from pgflow.start_flow('nolim', '[1, 2, 3, 4, 5]'::jsonb) \gset
select run_id as lim_run from pgflow.start_flow('lim', '[1, 2]'::jsonb) \gset

-- TEST: a claim of the unlimited flow starts all five, holds nothing, takes no step lock
select is(pgflow_tests.claim('nolim', 'aaaaaaaa-0000-0000-0000-00000000000a', 5), 5, 'all five tasks start');
select is((select count(*) from pgflow.throttled_messages), 0::bigint, 'throttled_messages stays empty');
select is((select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
           and classid::bigint = (hashtext('pgflow.max_in_flight')::bigint & 4294967295)),
  0::bigint, 'no max_in_flight step lock was taken');

-- TEST: completing and failing its tasks leaves throttled_messages empty
select pgflow.complete_task(:'run_id', 'items', 0, '1'::jsonb);
select pgflow.fail_task(:'run_id', 'items', 1, 'boom');
select is((select count(*) from pgflow.throttled_messages), 0::bigint, 'still empty after reports');

-- TEST: (control) a claim of the limited flow takes its step lock, until commit
select is(pgflow_tests.claim('lim', 'aaaaaaaa-0000-0000-0000-00000000000a', 5), 1, 'the limited flow starts one task');
select is((select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()
           and classid::bigint = (hashtext('pgflow.max_in_flight')::bigint & 4294967295)
           and objid::bigint = (hashtext('lim/items')::bigint & 4294967295)),
  1::bigint, 'the claim holds the advisory lock of lim/items');

select * from finish();
rollback;
