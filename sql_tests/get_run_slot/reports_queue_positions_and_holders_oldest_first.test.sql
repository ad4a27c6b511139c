begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: flow lim, at most 2 runs per key, on_limit queue; holders h_new and h_old (h_old
-- started earlier although its run id sorts after h_new's), then three queued runs
select pgflow_tests.limited_flow('lim', 2, 'queue');
select pgflow_tests.keyed_run('lim', 'ck', '00000000-0000-0000-0000-000000000001') as h_new \gset
select pgflow_tests.keyed_run('lim', 'ck', 'ffffffff-0000-0000-0000-000000000002') as h_old \gset
update pgflow.runs set started_at = now() - interval '1 minute' where run_id = :'h_old';
select pgflow_tests.keyed_run('lim', 'ck') as q1 \gset
select pgflow_tests.keyed_run('lim', 'ck') as q2 \gset
select pgflow_tests.keyed_run('lim', 'ck') as q3 \gset

-- TEST: queued runs get positions 1, 2, 3 in start order, with the holders oldest first
select results_eq(
  format($$select * from pgflow.get_run_slot(%L)$$, :'q1'),
  format($$values ('ck'::text, 2, 'queue'::text, 1, array[%L, %L]::uuid[])$$, :'h_old', :'h_new'),
  'q1: key, limit, on_limit, position 1, holders oldest first'
);
select is((select queue_position from pgflow.get_run_slot(:'q2')), 2, 'q2 is second in line');
select is((select queue_position from pgflow.get_run_slot(:'q3')), 3, 'q3 is third in line');

-- TEST: a holder has no position and sees itself among the holders
select results_eq(
  format($$select queue_position, holders from pgflow.get_run_slot(%L)$$, :'h_new'),
  format($$values (null::int, array[%L, %L]::uuid[])$$, :'h_old', :'h_new'),
  'a holder: no position, the holders include it'
);

-- TEST: a paused holder still holds (it stays in holders)
select pgflow.pause_run(:'h_old', 'tester', null);
select is(
  (select holders from pgflow.get_run_slot(:'q1')),
  array[:'h_old', :'h_new']::uuid[],
  'a paused holder is still listed'
);

-- TEST: positions move up when a run ahead leaves the queue
select pgflow.cancel_run(:'q1', 'tester', null);
select is((select queue_position from pgflow.get_run_slot(:'q2')), 1, 'q2 is next once q1 was cancelled');
select is((select queue_position from pgflow.get_run_slot(:'q3')), 2, 'q3 moved up to 2');

-- TEST: a finished run of the key has no position and is no holder
select results_eq(
  format($$select concurrency_key, queue_position, holders from pgflow.get_run_slot(%L)$$, :'q1'),
  format($$values ('ck'::text, null::int, array[%L, %L]::uuid[])$$, :'h_old', :'h_new'),
  'a cancelled run: its key, no position, the current holders'
);

select * from finish();
rollback;
