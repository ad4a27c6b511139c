begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: the sequential flow; pgflow.actor and pgflow.reason never set in this session
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset

-- TEST: start_flow writes one run event for the new run: run:started by app, no reason,
-- no details, no step or task, at the transaction's time
select results_eq(
  format($$select event, actor, reason, details, task_index, created_at = now()
           from pgflow.run_events where run_id = %L and step_slug is null order by id$$, :'run'),
  $$values ('run:started'::text, 'app'::text, null::text, null::jsonb, null::int, true)$$,
  'one run:started row: actor app, reason NULL, details NULL (not a rerun), created_at now'
);

-- TEST: a blank pgflow.actor / pgflow.reason counts as unset (app, no reason)
select set_config('pgflow.actor', '', true), set_config('pgflow.reason', '', true);
select run_id as blank_run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select results_eq(
  format($$select event, actor, reason from pgflow.run_events where run_id = %L and step_slug is null$$, :'blank_run'),
  $$values ('run:started'::text, 'app'::text, null::text)$$,
  'blank settings: actor app, reason NULL'
);

-- TEST: a start_flow that raises (the run_id exists) writes no event
select count(*) as before from pgflow.run_events \gset
select throws_ok(
  format($$select pgflow.start_flow('sequential', '{}'::jsonb, %L)$$, :'run'),
  '23505',
  format('Run %s already exists', :'run'),
  'start_flow with an existing run_id raises unique_violation'
);
select is((select count(*) from pgflow.run_events), :before::bigint, 'and nothing was written');

select * from finish();
rollback;
