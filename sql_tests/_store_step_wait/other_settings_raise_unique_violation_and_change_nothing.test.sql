begin;
select plan(12);
select pgflow_tests.reset_db();

-- SETUP: step approved waits for "go", any payload, no timeout, on_timeout fail, with a handler
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'approved');
-- The stored wait with some fields replaced (a JSON object of the new values), as a statement.
create function pg_temp.store_changed(changes jsonb) returns text language sql as $$
  select format('select pgflow._store_step_wait(jsonb_populate_record(null::pgflow.step_waits, %L))',
    '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "go",
      "on_timeout": "fail", "runs_handler": true}'::jsonb || changes)
$$;
select pgflow._store_step_wait(jsonb_populate_record(null::pgflow.step_waits,
  '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "go",
    "on_timeout": "fail", "runs_handler": true}'));
create temp table first_row as select * from pgflow.step_waits;

-- The error fields of one statement: {sqlstate, message, hint}; NULL when it did not raise.
create function pg_temp.error_of(sql text) returns text[] language plpgsql as $f$
declare v_state text; v_message text; v_hint text;
begin
  execute sql;
  return null;
exception when others then
  get stacked diagnostics v_state = returned_sqlstate, v_message = message_text, v_hint = pg_exception_hint;
  return array[v_state, v_message, v_hint];
end $f$;

-- TEST: any other setting raises unique_violation naming the step and the flow
select throws_ok(pg_temp.store_changed('{"signal_name": "stop"}'), '23505',
  'Step ''approved'' of flow ''approval'' already waits, with other settings', 'another signal name raises 23505');
select throws_ok(pg_temp.store_changed('{"signal_match": {}}'), '23505', null,
  'a match {} where there was none raises 23505 (NULL and {} differ)');
select throws_ok(pg_temp.store_changed('{"timeout_seconds": 10}'), '23505', null,
  'a timeout where there was none raises 23505');
select throws_ok(pg_temp.store_changed('{"on_timeout": "skip"}'), '23505', null, 'another on_timeout raises 23505');
select throws_ok(pg_temp.store_changed('{"runs_handler": false}'), '23505', null, 'another runs_handler raises 23505');
select throws_ok(
  pg_temp.store_changed('{"kind": "timer", "signal_name": null, "runs_handler": false, "sleep_seconds": 5}'),
  '23505', null, 'a timer for the waiting step raises 23505');

-- TEST: the error hints that a definition does not change
select is(pg_temp.error_of(pg_temp.store_changed('{"signal_name": "stop"}')),
  array['23505', 'Step ''approved'' of flow ''approval'' already waits, with other settings',
        'A flow''s definition does not change: create a new flow (or delete this one in development).'],
  'sqlstate, message and hint');

-- TEST: a timer stored first refuses another time the same way
select pgflow.add_step('approval', 'remind');
select pgflow._store_step_wait(jsonb_populate_record(null::pgflow.step_waits,
  '{"flow_slug": "approval", "step_slug": "remind", "kind": "timer", "on_timeout": "fail",
    "runs_handler": false, "sleep_seconds": 60}'));
select throws_ok(
  $$select pgflow._store_step_wait(jsonb_populate_record(null::pgflow.step_waits,
    '{"flow_slug": "approval", "step_slug": "remind", "kind": "timer", "on_timeout": "fail",
      "runs_handler": false, "sleep_seconds": 61}'))$$,
  '23505', 'Step ''remind'' of flow ''approval'' already waits, with other settings', 'other seconds raise 23505');
select throws_ok(
  $$select pgflow._store_step_wait(jsonb_populate_record(null::pgflow.step_waits,
    '{"flow_slug": "approval", "step_slug": "remind", "kind": "timer", "on_timeout": "fail",
      "runs_handler": false, "sleep_until": "input.at"}'))$$,
  '23505', null, 'a time read at a path instead of seconds raises 23505');

-- TEST: nothing changed
select is((select count(*)::int from pgflow.step_waits), 2, 'two rows: approved and remind');
select is((select to_jsonb(w) from pgflow.step_waits as w where w.step_slug = 'approved'),
  (select to_jsonb(f) from first_row as f), 'the wait of approved is unchanged');
select is((select sleep_seconds from pgflow.step_waits where step_slug = 'remind'), 60, 'remind still sleeps 60 s');

select * from finish();
rollback;
