begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: no realtime schema at all
select is(
  to_regnamespace('realtime'),
  null,
  'precondition: there is no schema realtime'
);

-- TEST: without realtime.send there are no broadcasts
select is(pgflow._realtime_enabled(), false, 'false when realtime.send does not exist');

-- TEST: a realtime.send with another signature does not count
create schema realtime;
create function realtime.send(payload jsonb, event text, topic text)
returns void
language sql
as 'select null';
select is(
  pgflow._realtime_enabled(),
  false,
  'false for a realtime.send(jsonb, text, text) without the private flag'
);

-- TEST: the expected signature, owned by the (superuser) test role, turns it on
set local client_min_messages = warning;
select pgflow_tests.create_realtime_stub();
select is(
  pgflow._realtime_enabled(),
  true,
  'true once realtime.send(jsonb, text, text, boolean) exists'
);

select * from finish();
rollback;
