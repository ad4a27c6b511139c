begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: three runs of first -> second -> last; "first" finished by hand in runs 1 and 2
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'r1', 'first', '1');
select pgflow_tests.finish_step(:'r2', 'first', '2');
select pgflow._start_ready_steps(array[:'r1', :'r2', :'r3']::uuid[]);

-- TEST: the ready step of both runs started in one call
select results_eq(
  format($$select run_id = %L, status, remaining_tasks, started_at is not null from pgflow.step_states
           where run_id in (%L, %L) and step_slug = 'second' order by run_id = %L desc$$,
         :'r1', :'r1', :'r2', :'r1'),
  $$values (true, 'started'::text, 1, true), (false, 'started', 1, true)$$,
  'second is started in runs 1 and 2 with remaining_tasks = initial_tasks'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t
   where t.run_id in (:'r1', :'r2') and t.step_slug = 'second' and t.status = 'queued'
     and pgflow_tests.message_exists('sequential', t.message_id)),
  2,
  'each gets one queued task with its message'
);

-- TEST: the run whose step was not ready is unchanged
select is(
  (select status from pgflow.step_states where run_id = :'r3' and step_slug = 'second'),
  'created',
  'second stays created in run 3'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'r3'),
  1,
  'run 3 keeps its single task (first)'
);

select * from finish();
rollback;
