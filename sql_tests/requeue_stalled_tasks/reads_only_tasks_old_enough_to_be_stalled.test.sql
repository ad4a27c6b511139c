begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: 200 started runs, 150 of their tasks started just now by a live worker; a run of
-- 'stall' (timeout 60 s) whose task was started 95 s ago; statistics taken then
select pgflow_tests.fill_behind_stale_statistics(200);
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stall', 60, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select count(*) from pgflow_tests.read_and_start('filler', 60, 150);
analyze pgflow.step_tasks;
analyze pgflow.runs;
analyze pgflow.step_states;
select pgflow_tests.index_reads('pgflow.idx_runs_status') as status_reads \gset
create temp table task_reads_before as
select sum(pgflow_tests.index_reads(i.indexrelid)) as n
from pg_index as i
where i.indrelid = 'pgflow.step_tasks'::regclass and i.indexrelid <> 'pgflow.step_tasks_pkey'::regclass;

-- TEST: the stalled task is requeued...
select is(pgflow.requeue_stalled_tasks(), 1, 'one task requeued');

-- TEST: ...finding the tasks old enough to be stalled (started before now - 90 s) through
-- idx_step_tasks_started_at, not every started task (the 150 started just now) through an
-- index of started tasks (the task itself is then updated by its primary key)
select cmp_ok(
  (select (sum(pgflow_tests.index_reads(i.indexrelid)) - b.n)::int
   from pg_index as i, task_reads_before as b
   where i.indrelid = 'pgflow.step_tasks'::regclass
     and i.indexrelid <> 'pgflow.step_tasks_pkey'::regclass
   group by b.n),
  '<', 10,
  'a handful of entries of the secondary indexes of step_tasks were read'
);

-- TEST: ...and their runs by key, not every started run through idx_runs_status
select is(pgflow_tests.index_reads('pgflow.idx_runs_status') - :status_reads, 0::bigint,
  'no entry of idx_runs_status was read');

select * from finish();
rollback;
