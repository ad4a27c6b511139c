begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last; the run has started "first"
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
-- pretend "first" finished: its child has no remaining deps
update pgflow.step_states set remaining_deps = 0
where run_id = :'run_id' and step_slug = 'second';

-- TEST: start_ready_steps starts the ready step
select lives_ok(
  format('select pgflow.start_ready_steps(%L)', :'run_id'),
  'start_ready_steps runs'
);
select results_eq(
  format($$select status, remaining_tasks, started_at is not null
           from pgflow.step_states where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values ('started'::text, 1, true)$$,
  'the ready step is started with remaining_tasks = initial_tasks and started_at set'
);
select results_eq(
  format($$select task_index, status, attempts_count, message_id is not null
           from pgflow.step_tasks where run_id = %L and step_slug = 'second'$$, :'run_id'),
  $$values (0, 'queued'::text, 0, true)$$,
  'one queued task with a message is created for it'
);

-- TEST: steps that still wait for deps are left alone
select is(
  (select status from pgflow.step_states where run_id = :'run_id' and step_slug = 'last'),
  'created',
  'a step with remaining_deps > 0 stays created'
);

select * from finish();
rollback;
