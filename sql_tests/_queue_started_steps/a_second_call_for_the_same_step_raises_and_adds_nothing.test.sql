begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: first -> next; "first" finished by hand, "next" set started and passed once
select pgflow.create_flow('pair');
select pgflow.add_step('pair', 'first');
select pgflow.add_step('pair', 'next', array['first']);
select run_id from pgflow.start_flow('pair', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'run_id', 'first', '{}');
update pgflow.step_states set status = 'started', started_at = now(), remaining_tasks = initial_tasks
where run_id = :'run_id' and step_slug = 'next';
select pgflow._queue_started_steps(array[:'run_id']::uuid[], array['next']);
select pgflow_tests.write_counts() as after_first \gset

-- TEST: the first call queued one task and recorded one step:started
select results_eq(
  format($$select (select count(*)::int from pgflow.step_tasks where run_id = %1$L and step_slug = 'next'),
                  (select count(*)::int from pgflow.run_events where run_id = %1$L and step_slug = 'next' and event = 'step:started')$$,
         :'run_id'),
  $$values (1, 1)$$, 'one task, one step:started');

-- TEST: a second call for the same step raises unique_violation (the step_tasks primary
-- key), and its event and message roll back with it
select throws_ok(
  format($$select pgflow._queue_started_steps(array[%L]::uuid[], array['next'])$$, :'run_id'),
  '23505', 'duplicate key value violates unique constraint "step_tasks_pkey"',
  'a second call raises 23505');
select is(pgflow_tests.write_counts(), :'after_first'::jsonb, 'no second task, message or event');
select is(pgflow_tests.queue_count('pair'), 2::bigint, 'the queue holds first''s and next''s messages only');

select * from finish();
rollback;
