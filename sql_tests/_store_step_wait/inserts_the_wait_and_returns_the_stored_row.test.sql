begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: flow approval: submit -> approved, submit -> remind
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'submit');
select pgflow.add_step('approval', 'approved', array['submit']);
select pgflow.add_step('approval', 'remind', array['submit']);
-- A step_waits value from a JSON object (columns not given are NULL).
create function pg_temp.wait(fields jsonb) returns pgflow.step_waits language sql as
  $$select jsonb_populate_record(null::pgflow.step_waits, fields)$$;

-- TEST: a signal wait with every setting is inserted and returned as stored; the created_at
-- passed in is ignored (the engine's time is stored)
select to_jsonb(pgflow._store_step_wait(pg_temp.wait(
  '{"flow_slug": "approval", "step_slug": "approved", "kind": "signal", "signal_name": "go",
    "signal_match": {"ok": true}, "timeout_seconds": 300, "on_timeout": "skip", "runs_handler": false,
    "created_at": "2000-01-01T00:00:00Z"}'))) as returned \gset
select is(
  (select to_jsonb(w) from pgflow.step_waits as w where w.step_slug = 'approved'),
  :'returned'::jsonb, 'the returned row is the stored row');
select results_eq(
  $$select flow_slug, step_slug, kind, signal_name, signal_match, timeout_seconds, on_timeout, runs_handler,
           sleep_seconds, sleep_until, created_at
    from pgflow.step_waits where step_slug = 'approved'$$,
  $$values ('approval'::text, 'approved'::text, 'signal'::text, 'go'::text, '{"ok": true}'::jsonb, 300, 'skip'::text,
            false, null::int, null::text, now())$$,
  'every setting stored; created_at is now(), not the value passed in');

-- TEST: a timer
select results_eq(
  $$select kind, signal_name, on_timeout, runs_handler, sleep_seconds, sleep_until
    from pgflow._store_step_wait(pg_temp.wait(
      '{"flow_slug": "approval", "step_slug": "remind", "kind": "timer", "on_timeout": "fail",
        "runs_handler": false, "sleep_until": "input.remind_at"}'))$$,
  $$values ('timer'::text, null::text, 'fail'::text, false, null::int, 'input.remind_at'::text)$$,
  'a timer read at input.remind_at is returned');
select is((select sleep_until from pgflow.step_waits where step_slug = 'remind'), 'input.remind_at', 'and stored');

-- TEST: one row per step, nothing else
select is((select count(*)::int from pgflow.step_waits), 2, 'two step_waits rows');

select * from finish();
rollback;
