begin;
select plan(4);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: first completed; then _fail_step is asked to fail it, with no run message
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"done"');
select pgflow._fail_step(:'run_id', 'first', 'too late', null);

-- TEST: the completed step is left alone, without a step event
select results_eq(
  format($$select status, error_message, output from pgflow.step_states
           where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('completed'::text, null::text, '"done"'::jsonb)$$,
  'the completed step keeps its status and output'
);
select ok(
  not ('step:first:failed' = any(pgflow_tests.run_events(:'run_id'))),
  'no step:failed is broadcast for it'
);

-- TEST: the run fails all the same; run:failed without error_message (run message NULL)
select is((select status from pgflow.runs where run_id = :'run_id'), 'failed', 'the run is failed');
select ok(
  not (pgflow_tests.event_payload(:'run_id', 'run:failed') ? 'error_message'),
  'run:failed carries no error_message'
);

select * from finish();
rollback;
