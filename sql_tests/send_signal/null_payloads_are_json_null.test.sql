begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: h waits for "a" (handler), g waits for "b" (no handler) -> after.
select pgflow.create_flow('nul', max_attempts => 1);
select pgflow.add_step('nul', 'h');
select pgflow.add_wait('nul', 'h', 'a');
select pgflow.add_step('nul', 'g');
select pgflow.add_wait('nul', 'g', 'b', runs_handler => false);
select pgflow.add_step('nul', 'after', array['g']);
select run_id from pgflow.start_flow('nul', '{}'::jsonb) \gset

-- TEST: a JSON null payload is stored and returned as JSON null
select results_eq(
  format($$select payload = 'null'::jsonb, status from pgflow.send_signal(%L, 'a', 'null'::jsonb)$$, :'run_id'),
  $$values (true, 'taken'::text)$$,
  'JSON null is returned as JSON null (not SQL NULL)');
select results_eq(
  format($$select payload = 'null'::jsonb, signal_name, timed_out from pgflow.get_step_signal(%L, 'h')$$, :'run_id'),
  $$values (true, 'a'::text, false)$$,
  'the handler reads payload JSON null with timed_out false');

-- TEST: no payload (SQL NULL) is stored as JSON null too
select results_eq(
  format($$select payload = 'null'::jsonb, status from pgflow.send_signal(%L, 'b')$$, :'run_id'),
  $$values (true, 'taken'::text)$$,
  'no payload: stored and returned as JSON null');
select is(
  (select count(*)::int from pgflow.signals where run_id = :'run_id' and payload = 'null'::jsonb), 2,
  'both rows hold JSON null');
select results_eq(
  format($$select status, output = 'null'::jsonb from pgflow.step_states where run_id = %L and step_slug = 'g'$$, :'run_id'),
  $$values ('completed'::text, true)$$,
  'g completed with output JSON null');
select results_eq(
  format($$select input from pgflow_tests.start_task(%L, 'after')$$, :'run_id'),
  $$values ('{"g": null}'::jsonb)$$,
  'its dependent gets {"g": null}');

-- TEST: a payload sent as JSON null is delivered even to a wait started later
select run_id as later from pgflow.start_flow('nul', '{}'::jsonb) \gset
select results_eq(
  format($$select timed_out, payload = 'null'::jsonb, signal_id is not null from pgflow.get_step_signal(%L, 'h')$$, :'later'),
  $$select null::boolean, null::boolean, null::boolean where false$$,
  'no row while the step still waits');
select count(*) from pgflow.send_signal(:'later', 'a');
select results_eq(
  format($$select timed_out, payload = 'null'::jsonb from pgflow.get_step_signal(%L, 'h')$$, :'later'),
  $$values (false, true)$$,
  'a signal without payload: JSON null, timed_out false');

select * from finish();
rollback;
