begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a plain one-step flow and the same with a condition on its root (start_flow then
-- inserts the step created and the cascade starts it)
select pgflow.create_flow('plain', max_attempts => 1);
select pgflow.add_step('plain', 'root');
select pgflow.create_flow('cond', max_attempts => 1);
select pgflow.add_step('cond', 'root', required_input_pattern => '{"go": true}');

-- TEST: a root step start_flow creates started is the starter's (app), as its run:started
select run_id as plain_run from pgflow.start_flow('plain', '{"go": true}'::jsonb) \gset
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where run_id = %L order by id$$, :'plain_run'),
  $$values (null::text, 'run:started'::text, 'app'::text), ('root', 'step:started', 'app')$$,
  'plain flow: run:started then step:started, both by app');

-- TEST: a root step the cascade starts (a flow with conditions) is the system's; the run's
-- run:started is still app
select run_id as cond_run from pgflow.start_flow('cond', '{"go": true}'::jsonb) \gset
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where run_id = %L order by id$$, :'cond_run'),
  $$values (null::text, 'run:started'::text, 'app'::text), ('root', 'step:started', 'system')$$,
  'flow with a condition: run:started by app, step:started by system (the cascade)');

-- TEST: unless pgflow.actor is set: then both are the setting's
select set_config('pgflow.actor', 'ops-script', true);
select run_id as cond_run2 from pgflow.start_flow('cond', '{"go": true}'::jsonb) \gset
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where run_id = %L order by id$$, :'cond_run2'),
  $$values (null::text, 'run:started'::text, 'ops-script'::text), ('root', 'step:started', 'ops-script')$$,
  'pgflow.actor set: run:started and step:started by ops-script');
select set_config('pgflow.actor', '', true);

-- TEST: with realtime on, start_flow also lets the cascade start the roots of a plain flow:
-- the step:started is then the system's
select pgflow_tests.create_realtime_stub();
select run_id as rt_run from pgflow.start_flow('plain', '{}'::jsonb) \gset
select results_eq(
  format($$select step_slug, event, actor from pgflow.run_events where run_id = %L order by id$$, :'rt_run'),
  $$values (null::text, 'run:started'::text, 'app'::text), ('root', 'step:started', 'system')$$,
  'realtime on: run:started by app, step:started by system');

select * from finish();
rollback;
