begin;
select plan(3);

-- SETUP
select pgflow.register_worker('22222222-2222-2222-2222-222222222222', 'my_flow', 'my_fn');
select pgflow.register_worker('33333333-3333-3333-3333-333333333333', 'my_flow', 'my_fn');

-- TEST: deprecated_at is stamped, kept on a second call, other workers untouched
select pgflow.deprecate_worker('22222222-2222-2222-2222-222222222222');
update pgflow.workers set deprecated_at = '2000-01-01' where worker_id = '22222222-2222-2222-2222-222222222222';
select pgflow.deprecate_worker('22222222-2222-2222-2222-222222222222');
select is(
  (select deprecated_at from pgflow.workers where worker_id = '22222222-2222-2222-2222-222222222222'),
  '2000-01-01'::timestamptz, 'a second call keeps the first deprecation time');
select is(
  (select deprecated_at from pgflow.workers where worker_id = '33333333-3333-3333-3333-333333333333'),
  null, 'other workers are untouched');
select lives_ok(
  $$ select pgflow.deprecate_worker('44444444-4444-4444-4444-444444444444') $$,
  'an unknown worker is ignored');

select * from finish();
rollback;
