begin;
select plan(6);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: nap (a timer of 3600 s) -> after
select pgflow.create_flow('napping', max_attempts => 1);
select pgflow.add_step('napping', 'nap');
select pgflow.add_timer('napping', 'nap', seconds => 3600);
select pgflow.add_step('napping', 'after', array['nap']);
select run_id from pgflow.start_flow('napping', '{}'::jsonb) \gset

-- TEST: due 3600 s after it started waiting; not fired before
select is((select deadline from pgflow.wait_states where run_id = :'run_id'), now() + interval '3600 seconds',
  'due at now() + 3600 s');
select pgflow.advance_clock(3599.5);
select results_eq($$select fired_waits from pgflow.tick()$$, $$values (0)$$, 'not fired 3599.5 s later');
select is((select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'nap'), 'waiting',
  'nap still waits');

-- TEST: fired once due; its output and stamps are on the moved clock
select pgflow.advance_clock(0.5);
select results_eq($$select fired_waits from pgflow.tick()$$, $$values (1)$$, 'fired 3600 s later');
select results_eq(
  format($$select status, output, completed_at from pgflow.step_states where run_id = %L and step_slug = 'nap'$$,
         :'run_id'),
  $$values ('completed'::text,
            jsonb_build_object('due_at', now() + interval '3600 seconds', 'fired_at', now() + interval '3600 seconds'),
            now() + interval '3600 seconds')$$,
  'nap completed: fired_at and completed_at now() + 3600 s');
select results_eq(
  format($$select status, started_at from pgflow.step_states where run_id = %L and step_slug = 'after'$$, :'run_id'),
  $$values ('started'::text, now() + interval '3600 seconds')$$, 'after started at now() + 3600 s');

select * from finish();
rollback;
