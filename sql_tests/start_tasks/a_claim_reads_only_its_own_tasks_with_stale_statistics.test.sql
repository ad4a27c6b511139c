begin;
select plan(3);
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
-- index entries read so far in this transaction: by message id, and from every other
-- index of step_tasks
create temp table reads_before as
select sum(pg_stat_get_xact_tuples_returned(i.indexrelid))
         filter (where i.indexrelid = 'pgflow.idx_step_tasks_message_id'::regclass) as by_message,
       sum(pg_stat_get_xact_tuples_returned(i.indexrelid))
         filter (where i.indexrelid <> 'pgflow.idx_step_tasks_message_id'::regclass) as other
from pg_index as i where i.indrelid = 'pgflow.step_tasks'::regclass;

-- TEST: a claim of 10 tasks claims 10...
select is(
  (select count(*)::int from pgflow_tests.read_and_start('root_map', 30, 10)),
  10,
  'ten tasks are claimed'
);

-- TEST: ...finding each task by its message id: no other index of step_tasks is read (a
-- plan starting from an index of queued tasks, as the statistics suggest, read all 2,000
-- queued tasks at every claim, and so did the update that found the claimed tasks again
-- by ctid next to `status = 'queued'`)
select is(
  (select (sum(pg_stat_get_xact_tuples_returned(i.indexrelid))
             filter (where i.indexrelid <> 'pgflow.idx_step_tasks_message_id'::regclass) - b.other)::int
   from pg_index as i, reads_before as b
   where i.indrelid = 'pgflow.step_tasks'::regclass
   group by b.other),
  0,
  'no index of step_tasks but idx_step_tasks_message_id was read'
);
select cmp_ok(
  (select (sum(pg_stat_get_xact_tuples_returned(i.indexrelid))
             filter (where i.indexrelid = 'pgflow.idx_step_tasks_message_id'::regclass) - b.by_message)::int
   from pg_index as i, reads_before as b
   where i.indrelid = 'pgflow.step_tasks'::regclass
   group by b.by_message),
  '>=', 10,
  'each claimed task was found through idx_step_tasks_message_id'
);

select * from finish();
rollback;
