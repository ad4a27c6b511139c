begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: 200 started runs, 150 of their tasks started just now by a live worker; a run of
-- 'stall' (timeout 60 s) whose task was started 95 s ago; statistics taken then
select pgflow.create_flow('filler');
select pgflow.add_step('filler', 'only');
select count(*) from (
  select pgflow.start_flow('filler', '{}'::jsonb) from generate_series(1, 200)
) as started;
select pgflow.create_flow('stall', timeout => 60);
select pgflow.add_step('stall', 'only');
select run_id from pgflow.start_flow('stall', '{}'::jsonb) \gset
select count(*) from pgflow_tests.read_and_start('stall', 60, 1);
select pgflow_tests.backdate_started_tasks(interval '95 seconds');
select count(*) from pgflow_tests.read_and_start('filler', 60, 150);
analyze pgflow.step_tasks;
analyze pgflow.runs;
analyze pgflow.step_states;
create temp table task_fetches_before as
select sum(pgflow_tests.index_fetches(i.indexrelid)) as n
from pg_index as i
where i.indrelid = 'pgflow.step_tasks'::regclass and i.indexrelid <> 'pgflow.step_tasks_pkey'::regclass;

-- TEST: the stalled task is requeued...
select is(pgflow.requeue_stalled_tasks(), 1, 'one task requeued');

-- TEST: ...finding the tasks old enough to be stalled (started before now - 90 s) through
-- idx_step_tasks_started_at, not every started task (the 150 started just now) through an
-- index of started tasks (the task itself is then updated by its primary key)
select cmp_ok(
  (select (sum(pgflow_tests.index_fetches(i.indexrelid)) - b.n)::int
   from pg_index as i, task_fetches_before as b
   where i.indrelid = 'pgflow.step_tasks'::regclass
     and i.indexrelid <> 'pgflow.step_tasks_pkey'::regclass
   group by b.n),
  '<', 10,
  'a handful of tasks were fetched through the secondary indexes of step_tasks'
);

select * from finish();
rollback;
