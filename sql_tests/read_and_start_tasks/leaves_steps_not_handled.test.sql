begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two_roots: root_a and root_b queued; a worker that only handles root_a
select pgflow_tests.setup_flow('two_roots');
select run_id from pgflow.start_flow('two_roots', '{}') \gset
select pgflow_tests.ensure_worker('two_roots') as worker \gset

-- TEST: both messages are read; only root_a is claimed; root_b's row has no task columns
select results_eq(
  format($$select message ->> 'step_slug', step_slug, task_index, attempts_count
           from pgflow.read_and_start_tasks('two_roots', %L, 10, 0, array['root_a'])$$, :'worker'),
  $$values ('root_a'::text, 'root_a'::text, 0, 1), ('root_b', null, null, null)$$,
  'every message read is returned; the unhandled one is not claimed'
);
select results_eq(
  format($$select step_slug, status, attempts_count from pgflow.step_tasks where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('root_a'::text, 'started'::text, 1), ('root_b', 'queued', 0)$$,
  'root_b stays queued with attempts_count 0'
);

-- TEST: with vt 0 the unhandled message is visible again at once for another worker
select results_eq(
  format($$select step_slug, attempts_count from pgflow.read_and_start_tasks('two_roots', %L, 10, 30)$$, :'worker'),
  $$values ('root_b'::text, 1)$$,
  'step_slugs NULL claims any step'
);

-- TEST: a duplicate delivery (task no longer queued) returns the message without a task
select pgflow_tests.make_visible('two_roots');
select is(
  (select count(*)::int from pgflow.read_and_start_tasks('two_roots', :'worker', 10, 30) where run_id is null),
  2, 'messages of started tasks come back without a task');

select * from finish();
rollback;
