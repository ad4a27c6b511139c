begin;
select plan(11);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "go" 60 s, handler) -> after; work is another root step.
select pgflow.create_flow('sk', max_attempts => 1);
select pgflow.add_step('sk', 'gate');
select pgflow.add_wait('sk', 'gate', 'go', timeout => 60);
select pgflow.add_step('sk', 'after', array['gate']);
select pgflow.add_step('sk', 'work');
select run_id from pgflow.start_flow('sk', '{}'::jsonb) \gset
select max(id) as mark from pgflow.run_events \gset

-- TEST: skip_step accepts a waiting step: skipped_by_operator, dependents run without it
select results_eq(
  format($$select status, changed, detail from pgflow.skip_step(%L, 'gate', 'alice', 'no approval needed')$$, :'run_id'),
  $$values ('started'::text, true, null::text)$$, 'skip_step on a waiting step changes the run');
select results_eq(
  format($$select status, skip_reason from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('skipped'::text, 'skipped_by_operator'::text)$$, 'gate is skipped by the operator');
select results_eq(
  format($$select step_slug, event, actor, reason from pgflow.run_events where run_id = %L and id > %s order by id$$,
         :'run_id', :'mark'),
  $$values ('gate'::text, 'step:skipped'::text, 'alice'::text, 'no approval needed'::text),
           ('after', 'step:started', 'alice', 'no approval needed')$$,
  'step:skipped then after started, by alice');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'gate'), 0,
  'gate never got a task');
select results_eq(
  format($$select input from pgflow_tests.start_task(%L, 'after')$$, :'run_id'),
  $$values ('{}'::jsonb)$$, 'after runs without gate''s output');

-- TEST: a signal sent afterwards is not taken by the skipped step; it stays pending
select results_eq(
  format($$select status, taken_by_step from pgflow.send_signal(%L, 'go', '{}')$$, :'run_id'),
  $$values ('pending'::text, null::text)$$, 'a later signal stays pending');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'gate'), 'skipped',
  'gate stays skipped');

-- TEST: its wait never times out: tick marks it abandoned
update pgflow.wait_states set deadline = now() - interval '1 second' where run_id = :'run_id';
select results_eq($$select * from pgflow.tick()$$, $$values (true, 0, 0, 0, 0, 0)$$, 'tick fires nothing');
select is((select outcome from pgflow.wait_states where run_id = :'run_id'), 'abandoned', 'the wait is abandoned');

-- TEST: a waiting step of a paused run can be skipped too
select run_id as paused from pgflow.start_flow('sk', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'paused', 'alice', null);
select results_eq(
  format($$select status, changed from pgflow.skip_step(%L, 'gate', 'alice', null)$$, :'paused'),
  $$values ('paused'::text, true)$$, 'in a paused run the waiting step is skipped, the run stays paused');
select results_eq(
  format($$select status, skip_reason from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'paused'),
  $$values ('skipped'::text, 'skipped_by_operator'::text)$$, 'gate of the paused run is skipped');

select * from finish();
rollback;
