begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: remind is a root timer until input.at.
select pgflow.create_flow('bad_at', max_attempts => 1);
select pgflow.add_step('bad_at', 'remind');
select pgflow.add_timer('bad_at', 'remind', until_path => 'input.at');

create function pg_temp.start_with(input jsonb) returns uuid language sql as $$
  select run_id from pgflow.start_flow('bad_at', input);
$$;
create function pg_temp.outcome(run uuid) returns text language sql as $$
  select format('%s/%s/%s | %s | %s', ws.outcome, ss.status, r.status, ss.error_message, ws.error_message)
  from pgflow.wait_states as ws
  join pgflow.step_states as ss using (run_id, step_slug)
  join pgflow.runs as r using (run_id)
  where ws.run_id = run;
$$;

-- TEST: each unreadable time fails the step (and the run) with a clear error, at start
select is(pg_temp.outcome(pg_temp.start_with('{}')),
  'unreadable/failed/failed | Timer: input.at is not an ISO 8601 timestamp (got nothing) | Timer: input.at is not an ISO 8601 timestamp (got nothing)',
  'a missing key');
select is(pg_temp.outcome(pg_temp.start_with('{"at": 1700000000}')),
  'unreadable/failed/failed | Timer: input.at is not an ISO 8601 timestamp (got 1700000000) | Timer: input.at is not an ISO 8601 timestamp (got 1700000000)',
  'a number');
select is(pg_temp.outcome(pg_temp.start_with('{"at": null}')),
  'unreadable/failed/failed | Timer: input.at is not an ISO 8601 timestamp (got null) | Timer: input.at is not an ISO 8601 timestamp (got null)',
  'JSON null');
select is(pg_temp.outcome(pg_temp.start_with('{"at": "tomorrow"}')),
  'unreadable/failed/failed | Timer: input.at is not an ISO 8601 timestamp (got "tomorrow") | Timer: input.at is not an ISO 8601 timestamp (got "tomorrow")',
  '''tomorrow''');
select alike(pg_temp.outcome(pg_temp.start_with('{"at": "2024-02-30T00:00:00Z"}')),
  'unreadable/failed/failed | Timer: input.at is not a valid timestamp (got "2024-02-30T00:00:00Z"): %',
  'an impossible date');
select alike(pg_temp.outcome(pg_temp.start_with('{"at": "2024-01-01T25:00:00Z"}')),
  'unreadable/failed/failed | Timer: input.at is not a valid timestamp (got "2024-01-01T25:00:00Z"): %',
  'an impossible hour');

-- TEST: events: timer:fired with outcome unreadable and the error, then step:failed, run:failed
select pg_temp.start_with('{"at": "tomorrow"}') as run_id \gset
select results_eq(
  format($$select event, details from pgflow.run_events where run_id = %L and event <> 'run:started' order by id$$, :'run_id'),
  $$values ('step:waiting'::text, '{"until_path": "input.at"}'::jsonb),
           ('timer:fired', '{"outcome": "unreadable", "error_message": "Timer: input.at is not an ISO 8601 timestamp (got \"tomorrow\")"}'),
           ('step:failed', jsonb_build_object('error_message', 'Timer: input.at is not an ISO 8601 timestamp (got "tomorrow")')),
           ('run:failed', jsonb_build_object('error_message', 'Timer: input.at is not an ISO 8601 timestamp (got "tomorrow")'))$$,
  'step:waiting, timer:fired (unreadable, error), step:failed, run:failed');

-- TEST: when_exhausted skip: the step is skipped with the error, the run completes
select pgflow.create_flow('bad_skip', max_attempts => 1);
select pgflow.add_step('bad_skip', 'remind', when_exhausted => 'skip');
select pgflow.add_timer('bad_skip', 'remind', until_path => 'input.at');
select run_id as skip_run from pgflow.start_flow('bad_skip', '{"at": "soon"}'::jsonb) \gset
select results_eq(
  format($$select status, skip_reason, error_message from pgflow.step_states where run_id = %L$$, :'skip_run'),
  $$values ('skipped'::text, 'timed_out'::text, 'Timer: input.at is not an ISO 8601 timestamp (got "soon")'::text)$$,
  'when_exhausted skip: skipped (skip_reason timed_out) with the error');
select is((select status from pgflow.runs where run_id = :'skip_run'), 'completed', 'that run completes');

-- TEST: a run that failed this way has nothing left for tick
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing');

select * from finish();
rollback;
