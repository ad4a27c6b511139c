begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a flow with a 20 s timeout; the worker read the message with a 300 s timeout
select pgflow.create_flow('short', timeout => 20);
select pgflow.add_step('short', 'only');
select run_id from pgflow.start_flow('short', '{}'::jsonb) \gset
select pgflow_tests.ensure_worker('short');
select msg_id from pgmq.read('short', 300, 1) \gset
select count(*) from pgflow._start_tasks('short', array[:msg_id::bigint], '11111111-1111-1111-1111-111111111111', true);

-- TEST: the lease becomes timeout + 2 seconds
select cmp_ok(pgflow_tests.message_vt_seconds('short', :msg_id), '>', 12::numeric, 'the message is hidden for about 22 s (lower bound)');
select cmp_ok(pgflow_tests.message_vt_seconds('short', :msg_id), '<=', 22::numeric, 'the message is hidden for about 22 s (upper bound)');

select * from finish();
rollback;
