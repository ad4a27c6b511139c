begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a run with its root step queued (one message)
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset

-- TEST: a task count of 0, empty and NULL arrays queue nothing
select lives_ok(
  format($$select pgflow._queue_step_tasks('map_chain', 0, array[%L]::uuid[], array['mapper'], array[0])$$, :'run_id'),
  'a task count of 0 is accepted'
);
select lives_ok($$select pgflow._queue_step_tasks('map_chain', 0, '{}', '{}', '{}')$$, 'empty arrays are accepted');
select lives_ok($$select pgflow._queue_step_tasks('map_chain', 0, null, null, null)$$, 'NULL arrays are accepted');
select results_eq(
  $$select (select count(*)::int from pgflow.step_tasks), pgflow_tests.queue_count('map_chain')$$,
  $$values (1, 1::bigint)$$,
  'still only the root step''s task and message'
);

select * from finish();
rollback;
