begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run_id', 'first', 0, '"one"'::jsonb);
select pgflow_tests.start_and_complete_task(:'run_id', 'second', 0, '"two"'::jsonb);

-- TEST: the run is still going before the last step
select is((select status from pgflow.runs where run_id = :'run_id'), 'started', 'the run is started before the last step completes');

-- TEST: completing the last step completes the run
select pgflow_tests.start_and_complete_task(:'run_id', 'last', 0, '{"final": true}'::jsonb);
select results_eq(
  format($$select status, remaining_steps, output, completed_at is not null
           from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, '{"last": {"final": true}}'::jsonb, true)$$,
  'the run is completed with the leaf output only'
);
select is(pgflow_tests.queue_count('sequential'), 0::bigint, 'no message is left in the queue');

select * from finish();
rollback;
