begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: flow fm: gets waits for "go" (no handler) and feeds the map step items. An
-- operator completed gets by hand with [1, 2]; then its wait is recorded as ended with a
-- signal whose payload is an object (which would break the map), and _finish_waits is called
-- for it.
select pgflow.create_flow('fm', max_attempts => 1);
select pgflow.add_step('fm', 'gets');
select pgflow.add_wait('fm', 'gets', 'go', runs_handler => false);
select pgflow.add_step('fm', 'items', array['gets'], step_type => 'map');
select run_id from pgflow.start_flow('fm', '{}'::jsonb) \gset
select count(*) from pgflow.complete_step(:'run_id', 'gets', '[1, 2]'::jsonb, 'alice', null);
insert into pgflow.signals (run_id, signal_name, payload, actor, status, taken_at, taken_by_step)
values (:'run_id', 'go', '{"not": "a list"}', 'test', 'taken', now(), 'gets');
update pgflow.wait_states as ws
set resolved_at = now(), outcome = 'signal',
    signal_id = (select sg.signal_id from pgflow.signals as sg where sg.run_id = ws.run_id)
where ws.run_id = :'run_id';
select pgflow._finish_waits(:'run_id', array['gets']);

-- TEST: the run is not failed; gets keeps the output the operator gave it
select results_eq(
  format($$select status from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text)$$,
  'the run is still started');
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'gets'$$, :'run_id'),
  $$values ('completed'::text, '[1, 2]'::jsonb)$$,
  'gets stays completed with [1, 2]');
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'run_id' and event = 'step:completed' and step_slug = 'gets'),
  1,
  'gets was recorded completed once (by the operator)');

select * from finish();
rollback;
