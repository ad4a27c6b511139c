begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flow "ab": gate (waits for "go" 60 s), a root step. Run 1 is cancelled, in run 2
-- an operator skips gate; both waits are then past their deadline.
select pgflow.create_flow('ab', max_attempts => 1);
select pgflow.add_step('ab', 'gate');
select pgflow.add_wait('ab', 'gate', 'go', timeout => 60);
select pgflow.add_step('ab', 'work');
select run_id as cancelled_run from pgflow.start_flow('ab', '{}'::jsonb) \gset
select run_id as skipped_run from pgflow.start_flow('ab', '{}'::jsonb) \gset
select count(*) from pgflow.cancel_run(:'cancelled_run', 'alice', null);
select count(*) from pgflow.skip_step(:'skipped_run', 'gate', 'alice', null);

-- TEST: the steps stopped waiting another way
select results_eq(
  format($$select run_id::text, status from pgflow.step_states where run_id in (%L, %L) and step_slug = 'gate'
           order by status$$, :'cancelled_run', :'skipped_run'),
  format($$values (%L, 'cancelled'::text), (%L, 'skipped')$$, :'cancelled_run', :'skipped_run'),
  'gate is cancelled in run 1, skipped in run 2');

-- TEST: tick marks their waits abandoned once past the deadline, and fires none
update pgflow.wait_states set deadline = now() - interval '1 second';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing');
select results_eq(
  format($$select run_id::text, outcome, resolved_at = now(), signal_id from pgflow.wait_states order by outcome, run_id::text$$),
  format($$select * from (values (%L, 'abandoned'::text, true, null::bigint), (%L, 'abandoned', true, null)) as v
           order by 2, 1$$, :'cancelled_run', :'skipped_run'),
  'both waits are abandoned');
select is(
  (select count(*)::int from pgflow.run_events where event in ('wait:timed_out', 'timer:fired', 'step:failed')), 0,
  'no timeout or failure was recorded');
select results_eq(
  format($$select status from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'skipped_run'),
  $$values ('skipped'::text)$$, 'the skipped step stays skipped');
select is((select status from pgflow.runs where run_id = :'skipped_run'), 'started', 'its run goes on');

-- TEST: an abandoned wait is not fired again, and a later signal to the cancelled run raises
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a second tick fires nothing');
select throws_ok(
  format($$select * from pgflow.send_signal(%L, 'go')$$, :'cancelled_run'),
  '55000', format('send_signal: run %s is cancelled', :'cancelled_run'), 'a signal to the cancelled run raises 55000');

select * from finish();
rollback;
