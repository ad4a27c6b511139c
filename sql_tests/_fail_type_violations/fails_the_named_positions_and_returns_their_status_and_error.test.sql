begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map), 3 attempts allowed; three runs whose producer task is
-- started; the reports are given as arrays, and positions 1 and 3 broke the map's type
select pgflow.create_flow('typed', max_attempts => 3);
select pgflow.add_step('typed', 'producer');
select pgflow.add_step('typed', 'mapper', array['producer'], step_type => 'map');
select run_id as r1 from pgflow.start_flow('typed', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('typed', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('typed', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'r1', 'producer');
select count(*) from pgflow_tests.start_task(:'r2', 'producer');
select count(*) from pgflow_tests.start_task(:'r3', 'producer');

-- TEST: one row per position named, in position order, with the task's status and error
select results_eq(
  format($$select pos, status, detail from pgflow._fail_type_violations(
             array[%L, %L, %L]::uuid[], array['producer', 'producer', 'producer'], array[0, 0, 0],
             array['{"a": 1}', '[1]', '"text"']::jsonb[], array[3, 1])$$, :'r1', :'r2', :'r3'),
  $$values (1, 'failed'::text, '[TYPE_VIOLATION] Produced object instead of array'::text),
           (3, 'failed'::text, '[TYPE_VIOLATION] Produced string instead of array'::text)$$,
  'positions 1 and 3 come back failed, with the produced type in their error'
);

-- TEST: their runs fail at once though attempts remain; the run of position 2 is untouched
select is(
  (select array_agg(status order by case run_id when :'r1' then 1 when :'r2' then 2 else 3 end) from pgflow.runs),
  array['failed', 'started', 'failed'],
  'runs 1 and 3 failed, run 2 still started'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'r2' and step_slug = 'producer'),
  'started',
  'the task of position 2 (not named) is still started'
);

-- TEST: a position naming no task returns nothing and writes nothing
select is(
  (select count(*)::int from pgflow._fail_type_violations(
     array[gen_random_uuid()], array['producer'], array[0], array['{}'::jsonb], array[1])),
  0,
  'an unknown task: no row'
);

select * from finish();
rollback;
