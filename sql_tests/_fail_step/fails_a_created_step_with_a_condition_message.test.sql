begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last; "second" (still created) fails its condition
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow._fail_step(:'run_id', 'second', 'Condition not met', 'Condition not met');

-- TEST: the step fails with 'Condition not met'
select results_eq(
  format($$select status, error_message, failed_at is not null from pgflow.step_states
           where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values ('failed'::text, 'Condition not met'::text, true)$$,
  'the step is failed with Condition not met'
);

-- TEST: the run fails, remaining_steps is not decremented
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, 3)$$,
  'the run is failed with remaining_steps unchanged'
);

-- TEST: outstanding messages are archived (through _fail_run)
select is(pgflow_tests.queue_count('sequential'), 0::bigint, 'first''s queued message left the queue');
select is(pgflow_tests.queue_count('sequential', 'a'), 1::bigint, 'it is archived');

select * from finish();
rollback;
