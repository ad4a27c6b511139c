begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: statistics taken while no task was queued (one finished run of 300 tasks), then a
-- root map of 2,000 tasks queued: the statistics say the index of queued tasks is empty
select pgflow_tests.setup_flow('root_map');
select pgflow.start_flow('root_map', (select jsonb_agg(g) from generate_series(1, 300) as g));
select count(*) from pgflow_tests.read_and_start('root_map', 30, 300);
select count(*) from pgflow.complete_tasks(
  array(select t.run_id from pgflow.step_tasks as t order by t.task_index),
  array(select t.step_slug from pgflow.step_tasks as t order by t.task_index),
  array(select t.task_index from pgflow.step_tasks as t order by t.task_index),
  array(select '1'::jsonb from pgflow.step_tasks as t));
analyze pgflow.step_tasks;
analyze pgflow.step_states;
analyze pgflow.runs;
select pgflow.start_flow('root_map', (select jsonb_agg(g) from generate_series(1, 2000) as g));
create temp table reads_before as
select pg_stat_get_xact_tuples_returned('pgflow.idx_step_tasks_queued'::regclass)
     + pg_stat_get_xact_tuples_returned('pgflow.idx_step_tasks_flow_run_step'::regclass) as n;

-- TEST: a claim of 10 tasks claims 10...
select is(
  (select count(*)::int from pgflow_tests.read_and_start('root_map', 30, 10)),
  10,
  'ten tasks are claimed'
);

-- TEST: ...reading the entries of its own messages only (a plan starting from the index of
-- queued tasks, as the statistics suggest, reads all 2,000 queued tasks at every claim)
select cmp_ok(
  (select (pg_stat_get_xact_tuples_returned('pgflow.idx_step_tasks_queued'::regclass)
          + pg_stat_get_xact_tuples_returned('pgflow.idx_step_tasks_flow_run_step'::regclass) - b.n)::int
   from reads_before as b),
  '<=', 20,
  'at most the claimed tasks'' entries were read from the indexes of queued tasks and of steps'
);

select * from finish();
rollback;
