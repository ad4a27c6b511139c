begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: run 1 failed with a ready step; run 2 advanced once already
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.finish_step(:'r1', 'first', '1');
update pgflow.runs set status = 'failed', failed_at = now() where run_id = :'r1';
select pgflow_tests.finish_step(:'r2', 'first', '1');
select pgflow._advance_runs(array[:'r2']::uuid[]);

-- TEST: a failed run is not moved
select pgflow._advance_runs(array[:'r1']::uuid[]);
select results_eq(
  format($$select (select status from pgflow.runs where run_id = %1$L), status from pgflow.step_states
           where run_id = %1$L and step_slug = 'second'$$, :'r1'),
  $$values ('failed'::text, 'created'::text)$$,
  'the failed run stays failed and its ready step created'
);

-- TEST: a repeated call changes nothing
select pgflow._advance_runs(array[:'r2', :'r2']::uuid[]);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'r2' and step_slug = 'second'),
  1,
  'no second task for the started step'
);
select is(pgflow_tests.queue_count('sequential'), 3::bigint, 'no extra message');

-- TEST: NULL, empty and unknown run ids
select lives_ok(
  $$select pgflow._advance_runs(null), pgflow._advance_runs('{}'),
           pgflow._advance_runs(array['00000000-0000-0000-0000-000000000000']::uuid[])$$,
  'NULL, empty and unknown run ids are accepted'
);
select is((select count(*)::int from pgflow.step_tasks), 3, 'still three tasks');

select * from finish();
rollback;
