begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a role that may create schemas provides realtime.send (a stand-in that records)
create role pgflow_test_mallory nologin;
select pgflow_tests.create_realtime_stub();
alter function realtime.send(jsonb, text, text, boolean) owner to pgflow_test_mallory;
select pgflow_tests.setup_flow('sequential');

-- TEST: broadcasts run inside SECURITY DEFINER functions, so that function is not called
select is(pgflow._realtime_enabled(), false, 'a realtime.send of another owner is not used');
select pgflow.start_flow('sequential', '{}');
select is((select count(*)::int from realtime.messages), 0, 'nothing was sent through it');

-- TEST: owned by a superuser (Supabase) or by pgflow's owner, it is used
alter function realtime.send(jsonb, text, text, boolean) owner to current_user;
select is(pgflow._realtime_enabled(), true, 'a realtime.send of a trusted owner is used');
select pgflow.start_flow('sequential', '{}');
select ok((select count(*)::int from realtime.messages) > 0, 'events are sent through it');

select * from finish();
rollback;
