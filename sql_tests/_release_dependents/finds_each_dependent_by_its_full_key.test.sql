begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: 300 started runs of a 3-step chain; the first step of one run is claimed
select pgflow_tests.setup_flow('sequential');
select count(*) from (
  select pgflow.start_flow('sequential', '{}'::jsonb) from generate_series(1, 300)
) as started;
create temp table claimed as
select * from pgflow_tests.read_and_start('sequential', 30, 1);
create temp table reads_before as
select pg_stat_get_xact_tuples_returned('pgflow.step_states_pkey'::regclass) as n;

-- TEST: completing it releases its dependent...
select count(*) from pgflow.complete_tasks(
  array(select c.run_id from claimed as c), array(select c.step_slug from claimed as c),
  array(select c.task_index from claimed as c), array['{"ok": true}'::jsonb]);
select is(
  (select ss.status from pgflow.step_states as ss join claimed as c using (run_id)
   where ss.step_slug = 'second'),
  'started',
  'the dependent of the completed step started'
);

-- TEST: ...reading a handful of step states through the primary key, not the state of
-- 'second' in all 300 runs (the dependents' update once found them by step_slug alone)
select cmp_ok(
  (select (pg_stat_get_xact_tuples_returned('pgflow.step_states_pkey'::regclass) - b.n)::int
   from reads_before as b),
  '<', 30,
  'a handful of step_states_pkey entries were read, whatever the number of runs'
);

select * from finish();
rollback;
