begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.ensure_worker('some_queue', '22222222-2222-2222-2222-222222222222');

-- TEST
select pgflow.mark_worker_stopped('22222222-2222-2222-2222-222222222222');
select isnt((select stopped_at from pgflow.workers), null, 'stopped_at is set');
select ok((select stopped_at >= now() from pgflow.workers),
  'stopped_at is the clock time of the call (not earlier than the transaction start)');

select * from finish();
rollback;
