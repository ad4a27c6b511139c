begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a run of the sequential flow
select pgflow_tests.setup_flow('sequential');
select run_id as old_run from pgflow.start_flow('sequential', '{"x": 1}'::jsonb) \gset

-- TEST: the new run of rerun_flow records run:started by the verb's actor and reason,
-- naming the run it reruns (details.rerun_of), then its root step:started (no details)
select run_id as new_run from pgflow.rerun_flow(:'old_run', 'alice', 'flaky upstream') \gset
select is((select rerun_of from pgflow.runs where run_id = :'new_run'), :'old_run'::uuid,
  'precondition: the new run''s rerun_of names the old run');
select results_eq(
  format($$select step_slug, event, actor, reason, details from pgflow.run_events
           where run_id = %L order by id$$, :'new_run'),
  format($$values (null::text, 'run:started'::text, 'alice'::text, 'flaky upstream'::text, '{"rerun_of": "%s"}'::jsonb),
                  ('first', 'step:started', 'alice', 'flaky upstream', null)$$, :'old_run'),
  'rerun_flow: run:started of the new run (details.rerun_of = the old run) and step:started of first, by alice'
);

-- TEST: the old run gets run:rerun naming the new run
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events
           where run_id = %L and event = 'run:rerun'$$, :'old_run'),
  format($$values ('run:rerun'::text, 'alice'::text, 'flaky upstream'::text, '{"new_run_id": "%s"}'::jsonb)$$, :'new_run'),
  'the old run: run:rerun by alice, details.new_run_id'
);

-- TEST: the rerun's mark lasts only for it: a later start_flow in the same transaction is
-- a plain new run (no details, by app)
select run_id as later_run from pgflow.start_flow('sequential', '{"x": 1}'::jsonb) \gset
select results_eq(
  format($$select event, actor, reason, details from pgflow.run_events
           where run_id = %L and step_slug is null$$, :'later_run'),
  $$values ('run:started'::text, 'app'::text, null::text, null::jsonb)$$,
  'a later start_flow: run:started by app, details NULL'
);

select * from finish();
rollback;
