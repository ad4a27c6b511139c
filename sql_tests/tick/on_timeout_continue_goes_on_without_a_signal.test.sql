begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: h (waits for "approved" 60 s, continue, handler); g (waits 60 s, continue, no
-- handler) -> after.
select pgflow.create_flow('tn', max_attempts => 1);
select pgflow.add_step('tn', 'h');
select pgflow.add_wait('tn', 'h', 'approved', timeout => 60, on_timeout => 'continue');
select pgflow.add_step('tn', 'g');
select pgflow.add_wait('tn', 'g', 'approved', timeout => 60, on_timeout => 'continue', runs_handler => false);
select pgflow.add_step('tn', 'after', array['g']);
select run_id from pgflow.start_flow('tn', '{}'::jsonb) \gset
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';

select results_eq($$select * from pgflow.tick()$$, $$values (true, 2, 0, 0, 0, 0)$$, 'tick fires both waits');

-- TEST: a step with a handler starts: its task is queued, get_step_signal says timed out
select results_eq(
  format($$select ss.status, t.status, pgflow_tests.message_exists('tn', t.message_id)
           from pgflow.step_states as ss join pgflow.step_tasks as t using (run_id, step_slug)
           where ss.run_id = %L and ss.step_slug = 'h'$$, :'run_id'),
  $$values ('started'::text, 'queued'::text, true)$$,
  'h started, its task queued with a message');
select results_eq(
  format($$select * from pgflow.get_step_signal(%L, 'h')$$, :'run_id'),
  $$values (null::bigint, 'approved'::text, null::jsonb, null::timestamptz, true)$$,
  'get_step_signal: (NULL, the awaited name, NULL, NULL, timed_out true)');

-- TEST: a step without a handler completes with a NULL output; its dependent runs
select results_eq(
  format($$select status, output is null, remaining_tasks from pgflow.step_states where run_id = %L and step_slug = 'g'$$, :'run_id'),
  $$values ('completed'::text, true, 0)$$, 'g completed with output NULL');
select results_eq(
  format($$select input from pgflow_tests.start_task(%L, 'after')$$, :'run_id'),
  $$values ('{"g": null}'::jsonb)$$, 'after gets {"g": null}');
select results_eq(
  format($$select step_slug, outcome from pgflow.wait_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('g'::text, 'timed_out'::text), ('h', 'timed_out')$$, 'both waits timed_out');
select results_eq(
  format($$select step_slug, event from pgflow.run_events where run_id = %L and step_slug in ('g', 'h')
           and event <> 'step:waiting' order by id$$, :'run_id'),
  $$values ('h'::text, 'wait:timed_out'::text), ('g', 'wait:timed_out'), ('h', 'step:started'), ('g', 'step:completed')$$,
  'wait:timed_out for both (step_index order), then h started and g completed');

-- TEST: the run goes on to its end
select pgflow.complete_task(:'run_id', 'after', 0, '"a"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'h', 0, '"h"'::jsonb);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"h": "h", "after": "a"}'::jsonb)$$, 'the run completes');
select is((select count(*)::int from pgflow.signals where run_id = :'run_id'), 0, 'no signal was made up');

select * from finish();
rollback;
