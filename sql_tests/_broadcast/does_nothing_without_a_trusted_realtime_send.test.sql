begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: no realtime.send at all
-- TEST: the call is a no-op, not an error
select lives_ok(
  $$select pgflow._broadcast('00000000-0000-0000-0000-0000000000a1', 'run:started', '{}'::jsonb)$$,
  'without realtime.send the call does not raise'
);

-- SETUP: a realtime.send of an untrusted owner
create role pgflow_test_mallory nologin;
select pgflow_tests.create_realtime_stub();
alter function realtime.send(jsonb, text, text, boolean) owner to pgflow_test_mallory;
select pgflow._broadcast('00000000-0000-0000-0000-0000000000a1', 'run:started', '{}'::jsonb);

-- TEST: that function is never called
select is((select count(*)::int from realtime.messages), 0, 'a realtime.send of an untrusted owner is not called');

-- TEST: once trusted, the same call sends
alter function realtime.send(jsonb, text, text, boolean) owner to current_user;
select pgflow._broadcast('00000000-0000-0000-0000-0000000000a1', 'run:started', '{}'::jsonb);
select is((select count(*)::int from realtime.messages), 1, 'a trusted realtime.send is called once');

select * from finish();
rollback;
