begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a and root_b completed, last started, then the run is paused
select pgflow_tests.setup_flow('two_roots');
select run_id as run from pgflow.start_flow('two_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'run', 'root_a', 0, '"a"'::jsonb);
select count(*) from pgflow_tests.start_and_complete_task(:'run', 'root_b', 0, '"b"'::jsonb);
select count(*) from pgflow_tests.start_task(:'run', 'last');
select count(*) from pgflow.pause_run(:'run', 'alice', null);
select coalesce(max(id), 0) as last_event from pgflow.run_events \gset

-- TEST: the last step completes: the run is completed and no longer paused
select count(*) from pgflow.complete_task(:'run', 'last', 0, '"z"'::jsonb);
select results_eq(
  format($$select status, completed_at = now(), paused_at, output from pgflow.runs where run_id = %L$$, :'run'),
  $$values ('completed'::text, true, null::timestamptz, '{"last": "z"}'::jsonb)$$,
  'the run is completed with its output, paused_at cleared'
);
select is(pgflow_tests.queue_count('two_roots'), 0::bigint, 'no message is left in the queue');
select results_eq(
  format($$select event, step_slug from pgflow.run_events where run_id = %L and id > %s order by id$$, :'run', :last_event),
  $$values ('step:completed'::text, 'last'::text), ('run:completed', null)$$,
  'events step:completed then run:completed'
);

select * from finish();
rollback;
