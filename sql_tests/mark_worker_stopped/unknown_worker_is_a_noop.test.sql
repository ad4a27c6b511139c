begin;
select plan(2);

-- SETUP
select pgflow_tests.reset_db();
select pgflow_tests.ensure_worker('q', '22222222-2222-2222-2222-222222222222');

-- TEST
select lives_ok($$ select pgflow.mark_worker_stopped('99999999-9999-9999-9999-999999999999') $$,
  'an unknown worker id does not raise');
select is((select count(*)::int from pgflow.workers where stopped_at is not null), 0,
  'no worker is marked stopped');

select * from finish();
rollback;
