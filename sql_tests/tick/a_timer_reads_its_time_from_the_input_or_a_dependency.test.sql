begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: flow "ti": remind is a root timer until input.remind.at; flow "td": prep -> ship, a
-- timer until prep.ship_by (prep's output).
select pgflow.create_flow('ti', max_attempts => 1);
select pgflow.add_step('ti', 'remind');
select pgflow.add_timer('ti', 'remind', until_path => 'input.remind.at');
select pgflow.create_flow('td', max_attempts => 1);
select pgflow.add_step('td', 'prep');
select pgflow.add_step('td', 'ship', array['prep']);
select pgflow.add_timer('td', 'ship', until_path => 'prep.ship_by');

-- TEST: from the run input: the deadline is that time
select run_id as from_input from pgflow.start_flow('ti', '{"remind": {"at": "2099-01-02T03:04:05Z"}}'::jsonb) \gset
select results_eq(
  format($$select ss.status, ws.deadline, ws.resolved_at from pgflow.wait_states as ws
           join pgflow.step_states as ss using (run_id, step_slug) where ws.run_id = %L$$, :'from_input'),
  $$values ('waiting'::text, '2099-01-02 03:04:05+00'::timestamptz, null::timestamptz)$$,
  'input.remind.at: waiting until 2099-01-02 03:04:05 UTC');

-- TEST: from a dependency's output (with an offset): read when the step starts waiting
select run_id as from_dep from pgflow.start_flow('td', '{}'::jsonb) \gset
select is((select count(*)::int from pgflow.wait_states where run_id = :'from_dep'), 0, 'no wait before prep completes');
select pgflow_tests.start_and_complete_task(:'from_dep', 'prep', 0, '{"ship_by": "2099-06-01T12:00:00+02:00"}'::jsonb);
select results_eq(
  format($$select ss.status, ws.deadline from pgflow.wait_states as ws
           join pgflow.step_states as ss using (run_id, step_slug) where ws.run_id = %L$$, :'from_dep'),
  $$values ('waiting'::text, '2099-06-01 10:00:00+00'::timestamptz)$$,
  'prep.ship_by: waiting until 2099-06-01 10:00 UTC');
select is(
  (select details from pgflow.run_events where run_id = :'from_dep' and event = 'step:waiting'),
  '{"until_path": "prep.ship_by"}'::jsonb, 'step:waiting names the path');

-- TEST: neither fires before its time; both fire when due
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'nothing is due yet');
update pgflow.wait_states set deadline = now() - interval '1 second';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 2, 0, 0, 0, 0)$$, 'both fire once due');
select results_eq(
  format($$select run_id::text, status from pgflow.runs where run_id in (%L, %L) order by run_id::text$$, :'from_input', :'from_dep'),
  format($$select * from (values (%L, 'completed'::text), (%L, 'completed')) as v order by 1$$, :'from_input', :'from_dep'),
  'both runs completed');

select * from finish();
rollback;
