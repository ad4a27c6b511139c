begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two runs of sequential, one of two_roots, and a third sequential run left out
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('two_roots');
select run_id as s1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as s2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as s3 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as t1 from pgflow.start_flow('two_roots', '{}'::jsonb) \gset

-- TEST: one call cancels the unfinished steps and tasks of every run given
select pgflow._cancel_unfinished_work(array[:'s1', :'s2', :'t1']::uuid[]);
select is(
  (select count(*)::int from pgflow.step_states where run_id in (:'s1', :'s2', :'t1') and status <> 'cancelled'), 0,
  'every step of s1, s2 and t1 is cancelled');
select is(
  (select count(*)::int from pgflow.step_tasks where run_id in (:'s1', :'s2', :'t1') and status <> 'cancelled'), 0,
  'every task of s1, s2 and t1 is cancelled');

-- TEST: each flow's messages go to its own archive; the run left out keeps its work
select results_eq(
  $$select pgflow_tests.queue_count('sequential', 'a'), pgflow_tests.queue_count('sequential', 'q'),
           pgflow_tests.queue_count('two_roots', 'a'), pgflow_tests.queue_count('two_roots', 'q')$$,
  $$values (2::bigint, 1::bigint, 2::bigint, 0::bigint)$$,
  'sequential: s1 and s2 archived, s3 queued; two_roots: both archived'
);
select results_eq(
  format($$select step_slug, status from pgflow.step_states where run_id = %L order by step_slug$$, :'s3'),
  $$values ('first'::text, 'started'::text), ('last', 'created'), ('second', 'created')$$,
  's3 untouched'
);

select * from finish();
rollback;
