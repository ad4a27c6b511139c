begin;
select plan(3);

-- SETUP: two workers, one deprecated, one stopped
select pgflow.register_worker('22222222-2222-2222-2222-222222222222', 'my_flow', 'my_fn');
select pgflow.register_worker('33333333-3333-3333-3333-333333333333', 'my_flow', 'my_fn');
select pgflow.deprecate_worker('22222222-2222-2222-2222-222222222222');
select pgflow.mark_worker_stopped('33333333-3333-3333-3333-333333333333');

-- TEST: both are told to stop reading; unknown workers get NULL (register again)
select is(pgflow.worker_heartbeat('22222222-2222-2222-2222-222222222222'), true,
  'a deprecated worker must stop reading');
select is(pgflow.worker_heartbeat('33333333-3333-3333-3333-333333333333'), true,
  'a stopped worker must stop reading');
select is(pgflow.worker_heartbeat('44444444-4444-4444-4444-444444444444'), null::boolean,
  'an unknown (pruned) worker gets NULL');

select * from finish();
rollback;
