begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: realtime.send owned by a role that is neither a superuser nor pgflow's owner
create role pgflow_test_mallory nologin;
create role pgflow_test_owner nologin;
create role pgflow_test_super superuser nologin;
select pgflow_tests.create_realtime_stub();
alter function realtime.send(jsonb, text, text, boolean) owner to pgflow_test_mallory;

-- TEST: an untrusted owner turns broadcasts off
select is(pgflow._realtime_enabled(), false, 'false for a realtime.send of an untrusted owner');

-- TEST: the owner of schema pgflow is trusted (even when not a superuser)
alter schema pgflow owner to pgflow_test_owner;
alter function realtime.send(jsonb, text, text, boolean) owner to pgflow_test_owner;
select is(pgflow._realtime_enabled(), true, 'true when realtime.send belongs to the owner of schema pgflow');

-- TEST: a superuser is trusted
alter function realtime.send(jsonb, text, text, boolean) owner to pgflow_test_super;
select is(pgflow._realtime_enabled(), true, 'true when realtime.send belongs to a superuser');

-- TEST: the check follows the owner, not the name of the function
alter function realtime.send(jsonb, text, text, boolean) owner to pgflow_test_mallory;
select is(pgflow._realtime_enabled(), false, 'false again once the owner is untrusted');

select * from finish();
rollback;
