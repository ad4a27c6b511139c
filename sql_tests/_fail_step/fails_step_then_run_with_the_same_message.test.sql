begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: first -> second -> last; first's task started
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');
select pgflow._fail_step(:'run_id', 'first', 'boom', 'boom');

-- TEST: the step is failed with the message
select results_eq(
  format($$select status, error_message, failed_at is not null from pgflow.step_states
           where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('failed'::text, 'boom'::text, true)$$,
  'the step is failed with error_message and failed_at'
);

-- TEST: the run is failed and its messages archived
select results_eq(
  format($$select status, failed_at is not null, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true, 3)$$,
  'the run is failed, remaining_steps unchanged'
);
select is(pgflow_tests.queue_count('sequential'), 0::bigint, 'the started task''s message is archived');

-- TEST: the run's unfinished work is cancelled with it (cancelled_at now)
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now() from pgflow.step_states
           where run_id = %L and step_slug <> 'first' order by step_slug$$, :'run_id'),
  $$values ('last'::text, 'cancelled'::text, true), ('second', 'cancelled', true)$$,
  'the other (created) steps are cancelled with cancelled_at now'
);
select results_eq(
  format($$select status, cancelled_at is not distinct from now() from pgflow.step_tasks
           where run_id = %L and step_slug = 'first'$$, :'run_id'),
  $$values ('cancelled'::text, true)$$,
  'a task the caller left started is cancelled by the run failure (callers close their task first)'
);

select * from finish();
rollback;
