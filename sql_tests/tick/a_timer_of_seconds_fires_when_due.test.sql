begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: prep -> nap (a timer of 3600 s) -> after.
select pgflow.create_flow('nap', max_attempts => 1);
select pgflow.add_step('nap', 'prep');
select pgflow.add_step('nap', 'nap', array['prep']);
select pgflow.add_timer('nap', 'nap', seconds => 3600);
select pgflow.add_step('nap', 'after', array['nap']);
select run_id from pgflow.start_flow('nap', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'prep');

-- TEST: the timer waits, with no task, due 3600 s after it started waiting
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'nap'), 'waiting', 'nap waits');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'nap'), 0, 'no task');
select results_eq(
  format($$select deadline - waiting_since, resolved_at from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values (interval '3600 seconds', null::timestamptz)$$, 'its deadline is waiting_since + 3600 s');
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a tick before it is due fires nothing');

-- TEST: when due, tick completes it with {"due_at", "fired_at"}; its dependent starts
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 1, 0, 0, 0, 0)$$, 'tick fires the timer');
select results_eq(
  format($$select status, output, remaining_tasks from pgflow.step_states where run_id = %L and step_slug = 'nap'$$, :'run_id'),
  $$values ('completed'::text, jsonb_build_object('due_at', now() - interval '1 second', 'fired_at', now()), 0)$$,
  'nap completed with output {"due_at": its deadline, "fired_at": now}');
select results_eq(
  format($$select outcome, resolved_at = now() from pgflow.wait_states where run_id = %L$$, :'run_id'),
  $$values ('due'::text, true)$$, 'the wait is resolved: due');
select results_eq(
  format($$select step_slug, event from pgflow.run_events where run_id = %L and step_slug = 'nap' order by id$$, :'run_id'),
  $$values ('nap'::text, 'step:waiting'::text), ('nap', 'timer:fired'), ('nap', 'step:completed')$$,
  'step:waiting, timer:fired, step:completed');
select results_eq(
  format($$select input from pgflow_tests.start_task(%L, 'after')$$, :'run_id'),
  format($$values (jsonb_build_object('nap', (select output from pgflow.step_states where run_id = %L and step_slug = 'nap')))$$, :'run_id'),
  'after starts with the timer''s output as input');
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'a second tick fires nothing');

select * from finish();
rollback;
