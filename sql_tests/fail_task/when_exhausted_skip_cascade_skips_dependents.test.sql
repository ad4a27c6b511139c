begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: fetch (skip-cascade) -> parse -> store; and an independent root "audit"
select pgflow.create_flow('cascade_fail', max_attempts => 1);
select pgflow.add_step('cascade_fail', 'fetch', when_exhausted => 'skip-cascade');
select pgflow.add_step('cascade_fail', 'parse', array['fetch']);
select pgflow.add_step('cascade_fail', 'store', array['parse']);
select pgflow.add_step('cascade_fail', 'audit');
select run_id from pgflow.start_flow('cascade_fail', '{}'::jsonb) \gset
select pgflow_tests.start_and_fail_task(:'run_id', 'fetch', 0, 'network down');

-- TEST: the failed step and its dependents are skipped
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('audit'::text, 'started'::text, null::text),
           ('fetch', 'skipped', 'handler_failed'),
           ('parse', 'skipped', 'dependency_skipped'),
           ('store', 'skipped', 'dependency_skipped')$$,
  'fetch is skipped (handler_failed), parse and store with dependency_skipped'
);
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 1)$$,
  'each skipped step is counted once; the run continues'
);

-- TEST: the run completes when the independent step finishes
select pgflow_tests.start_and_complete_task(:'run_id', 'audit', 0, '"logged"'::jsonb);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"audit": "logged"}'::jsonb)$$,
  'the run completes with only the completed leaf'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug in ('parse', 'store')),
  0,
  'no task was ever created for the cascade-skipped steps'
);

select * from finish();
rollback;
