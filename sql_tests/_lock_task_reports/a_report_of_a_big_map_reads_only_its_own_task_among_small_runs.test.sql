begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: 1,000 runs of a flow with one task per step, analyzed (the statistics then say a
-- step has about one task), then one root map of 2,000 tasks, every task of it claimed
select pgflow_tests.setup_flow('sequential');
select count(*) from (select pgflow.start_flow('sequential', '{}'::jsonb) from generate_series(1, 1000)) as s;
analyze pgflow.step_tasks;
analyze pgflow.step_states;
analyze pgflow.runs;
select pgflow_tests.setup_flow('root_map');
update pgflow.steps set opt_max_attempts = 3 where flow_slug = 'root_map';  -- a failure retries
select run_id from pgflow.start_flow('root_map', (select jsonb_agg(g) from generate_series(1, 2000) as g)) \gset
select count(*) from pgflow_tests.read_and_start('root_map', 30, 2000);

-- index entries of step_tasks' primary key read so far in this transaction
create temp table reads_before as
select pg_stat_get_xact_tuples_returned('pgflow.step_tasks_pkey'::regclass) as n;

-- TEST: reports of tasks near the end of the map apply...
select is(
  (select c.outcome from pgflow.complete_tasks(array[:'run_id']::uuid[], array['items'], array[1990],
     array['"y"']::jsonb[], array[1]) as c),
  'completed',
  'a batch of one completes its task'
);
select is(
  (select status from pgflow.complete_task(:'run_id', 'items', 1991, '"x"'::jsonb, 1)),
  'completed',
  'a single report completes its task'
);
select is(
  (select f.outcome from pgflow.fail_tasks(array[:'run_id']::uuid[], array['items'], array[1992],
     array['boom'], array[1]) as f),
  'retried',
  'a failure report retries its task'
);

-- TEST: ...reading their own tasks only: the lock of each report finds its task by its
-- whole key (by (run_id, step_slug) alone, as a plan built on these statistics may, it
-- reads the map's tasks up to its own: about 6,000 entries for these three reports)
select cmp_ok(
  (select (pg_stat_get_xact_tuples_returned('pgflow.step_tasks_pkey'::regclass) - b.n)::int
   from reads_before as b),
  '<',
  100,
  'the three reports read fewer than 100 entries of the tasks'' primary key'
);

select * from finish();
rollback;
