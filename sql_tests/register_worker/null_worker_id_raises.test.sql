begin;
select plan(2);

-- TEST: a NULL id is rejected before anything is written
select throws_ok(
  $$ select pgflow.register_worker(null, 'my_flow', 'my_fn') $$,
  '22004',
  'worker_id must not be NULL',
  'NULL worker_id raises');
select is((select count(*)::int from pgflow.workers), 0, 'no worker row written');

select * from finish();
rollback;
