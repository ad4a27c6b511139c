begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: root step gate waits for signal go (timeout 1 hour, so the tick does not fire it)
-- beside root step work; the run's deadline passes first
select pgflow.create_flow('wt', max_attempts => 1);
select pgflow.add_step('wt', 'gate');
select pgflow.add_wait('wt', 'gate', 'go', timeout => 3600, on_timeout => 'fail');
select pgflow.add_step('wt', 'work');
select run_id from pgflow.start_flow('wt', '{}'::jsonb, deadline => now() + interval '1 hour') \gset
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'), 'waiting',
  'gate is waiting');
select pgflow_tests.pass_deadline(:'run_id');

-- TEST: the tick expires the run; no wait is fired
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 1, 0, 0)$$, 'tick: fired_waits 0, expired_runs 1');
select is((select status from pgflow.runs where run_id = :'run_id'), 'expired', 'the run is expired');

-- TEST: the wait ends abandoned (resolved now), as _abandon_waits does; the step is cancelled
select results_eq(format($$select outcome, resolved_at from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values ('abandoned'::text, now())$$, 'the wait is abandoned, resolved_at now');
select results_eq(format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'cancelled'::text), ('work', 'cancelled')$$, 'both steps are cancelled');
select is(pgflow_tests.run_leftovers(:'run_id'),
  '{"live_steps": 0, "live_tasks": 0, "queued_messages": 0, "archived_messages": 1, "open_waits": 0}'::jsonb,
  'nothing live, work''s message archived, no open wait');

-- TEST: a later tick (even past the wait's own deadline) fires nothing for it
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a later tick does nothing');

select * from finish();
rollback;
