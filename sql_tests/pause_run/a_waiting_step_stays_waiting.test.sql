begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: gate (waits for "go" 60 s) -> after; nap (timer 60 s).
select pgflow.create_flow('pw', max_attempts => 1);
select pgflow.add_step('pw', 'gate');
select pgflow.add_wait('pw', 'gate', 'go', timeout => 60);
select pgflow.add_step('pw', 'after', array['gate']);
select pgflow.add_step('pw', 'nap');
select pgflow.add_timer('pw', 'nap', seconds => 60);
select run_id from pgflow.start_flow('pw', '{}'::jsonb) \gset
create temp table waits_before as select * from pgflow.wait_states;

-- TEST: pause_run leaves the waiting steps waiting, their waits untouched
select results_eq(
  format($$select status, changed from pgflow.pause_run(%L, 'alice', 'hold')$$, :'run_id'),
  $$values ('paused'::text, true)$$, 'pause_run pauses the run');
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'created'::text), ('gate', 'waiting'), ('nap', 'waiting')$$, 'gate and nap still wait');
select set_eq(
  $$select * from pgflow.wait_states$$, $$select * from waits_before$$, 'wait_states are unchanged (same deadlines, open)');
select results_eq(
  format($$select event from pgflow.run_events where run_id = %L and actor = 'alice'$$, :'run_id'),
  $$values ('run:paused'::text)$$, 'only run:paused was recorded');

-- TEST: resume_run with nothing due: they keep waiting with the same deadlines
select count(*) from pgflow.resume_run(:'run_id', 'alice', null);
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L and step_slug in ('gate', 'nap') order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'waiting'::text), ('nap', 'waiting')$$, 'after resume they still wait');
select set_eq(
  $$select * from pgflow.wait_states$$, $$select * from waits_before$$, 'with the same waits');

select * from finish();
rollback;
