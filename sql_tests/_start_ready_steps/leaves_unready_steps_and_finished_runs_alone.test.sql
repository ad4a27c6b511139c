begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: run 1 failed with a ready step; run 2 with a ready step started once already
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'r1', 'first', '1');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'r1';
select pgflow_tests.finish_step(:'r2', 'first', '2');
select pgflow._start_ready_steps(array[:'r2']::uuid[]);

-- TEST: a failed run's ready step is not started
select pgflow._start_ready_steps(array[:'r1']::uuid[]);
select is(
  (select status from pgflow.step_states where run_id = :'r1' and step_slug = 'second'),
  'created',
  'a ready step of a failed run stays created'
);

-- TEST: a repeated call starts nothing more
select pgflow._start_ready_steps(array[:'r2', :'r2']::uuid[]);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'r2' and step_slug = 'second'),
  1,
  'no second task for an already started step (even with the run named twice)'
);
select is(pgflow_tests.queue_count('sequential'), 3::bigint, 'no extra message (two first + one second)');
select is(
  (select status from pgflow.step_states where run_id = :'r2' and step_slug = 'last'),
  'created',
  'a step with a pending dependency stays created'
);

-- TEST: NULL, empty and unknown run ids do nothing
select lives_ok(
  $$select pgflow._start_ready_steps(null), pgflow._start_ready_steps('{}'),
           pgflow._start_ready_steps(array['00000000-0000-0000-0000-000000000000']::uuid[])$$,
  'NULL, empty and unknown run ids are accepted'
);
select is((select count(*)::int from pgflow.step_tasks), 3, 'still three tasks');

select * from finish();
rollback;
