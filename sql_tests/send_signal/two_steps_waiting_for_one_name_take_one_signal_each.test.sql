begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: zeta (step_index 0) and alpha (step_index 1) both wait for "go" with no handler;
-- step_index order, not the slugs' order, decides who is first.
select pgflow.create_flow('two', max_attempts => 1);
select pgflow.add_step('two', 'zeta');
select pgflow.add_wait('two', 'zeta', 'go', runs_handler => false);
select pgflow.add_step('two', 'alpha');
select pgflow.add_wait('two', 'alpha', 'go', runs_handler => false);
select run_id from pgflow.start_flow('two', '{}'::jsonb) \gset

-- TEST: one signal wakes one step: the first in step_index order
select results_eq(
  format($$select taken_by_step from pgflow.send_signal(%L, 'go', '{"n": 1}')$$, :'run_id'),
  $$values ('zeta'::text)$$, 'the first signal is taken by zeta (step_index 0)');
select results_eq(
  format($$select step_slug, status, output from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('alpha'::text, 'waiting'::text, null::jsonb), ('zeta', 'completed', '{"n": 1}')$$,
  'alpha still waits');
select results_eq(
  format($$select taken_by_step from pgflow.send_signal(%L, 'go', '{"n": 2}')$$, :'run_id'),
  $$values ('alpha'::text)$$, 'the second signal is taken by alpha');
select is((select status from pgflow.runs where run_id = :'run_id'), 'completed', 'the run completed');

-- TEST: buffered: two signals sent before both start waiting go one to each, oldest first
select pgflow.create_flow('two_buf', max_attempts => 1);
select pgflow.add_step('two_buf', 'prep');
select pgflow.add_step('two_buf', 'zeta', array['prep']);
select pgflow.add_wait('two_buf', 'zeta', 'go', runs_handler => false);
select pgflow.add_step('two_buf', 'alpha', array['prep']);
select pgflow.add_wait('two_buf', 'alpha', 'go', runs_handler => false);
select run_id as buf from pgflow.start_flow('two_buf', '{}'::jsonb) \gset
select count(*) from pgflow.send_signal(:'buf', 'go', '{"n": 1}');
select count(*) from pgflow.send_signal(:'buf', 'go', '{"n": 2}');
select count(*) from pgflow.send_signal(:'buf', 'go', '{"n": 3}');
select pgflow_tests.start_and_complete_task(:'buf', 'prep');
select results_eq(
  format($$select step_slug, status, output from pgflow.step_states where run_id = %L and step_slug <> 'prep'
           order by step_slug$$, :'buf'),
  $$values ('alpha'::text, 'completed'::text, '{"n": 2}'::jsonb), ('zeta', 'completed', '{"n": 1}')$$,
  'zeta takes the oldest signal, alpha the next one');
select results_eq(
  format($$select payload, status from pgflow.signals where run_id = %L and status = 'pending'$$, :'buf'),
  $$values ('{"n": 3}'::jsonb, 'pending'::text)$$,
  'the third signal stays pending');
select is(
  (select count(*)::int from pgflow.run_events where run_id = :'buf' and event = 'signal:taken'), 2,
  'two signal:taken events, one per step');

select * from finish();
rollback;
