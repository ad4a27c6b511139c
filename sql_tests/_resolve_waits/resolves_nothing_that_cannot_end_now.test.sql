begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: gate waits for "go" 60 s (on_timeout fail); remind is a timer until input.at.
select pgflow.create_flow('rn', max_attempts => 1);
select pgflow.add_step('rn', 'gate');
select pgflow.add_wait('rn', 'gate', 'go', timeout => 60);
select pgflow.add_step('rn', 'remind');
select pgflow.add_timer('rn', 'remind', until_path => 'input.at');
select run_id from pgflow.start_flow('rn', '{"at": "2099-01-01T00:00:00Z"}'::jsonb) \gset

-- TEST: before the deadline, with no signal: nothing
select is(pgflow._resolve_waits(:'run_id'), 0, 'no signal, deadline ahead: nothing resolved');

-- TEST: a timer's due time is read once: a later change of the input does not move it
update pgflow.runs set input = '{"at": "2000-01-01T00:00:00Z"}' where run_id = :'run_id';
select is(pgflow._resolve_waits(:'run_id'), 0, 'still nothing resolved');
select is((select deadline from pgflow.wait_states where run_id = :'run_id' and step_slug = 'remind'),
  '2099-01-01 00:00:00+00'::timestamptz, 'remind keeps the due time read when it started waiting');

-- TEST: a run that is not started: nothing, even past the deadline and with a signal
select count(*) from pgflow.pause_run(:'run_id', 'alice', null);
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
insert into pgflow.signals (run_id, signal_name, payload, actor) values (:'run_id', 'go', '{}', 'test');
select is(pgflow._resolve_waits(:'run_id'), 0, 'a paused run: nothing resolved');
select is((select count(*)::int from pgflow.wait_states where run_id = :'run_id' and resolved_at is null), 2, 'both waits open');
select is((select status from pgflow.signals where run_id = :'run_id'), 'pending', 'the signal stays pending');
select is(pgflow._resolve_waits('00000000-0000-0000-0000-000000000000'), 0, 'an unknown run: nothing');

select * from finish();
rollback;
