begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: two runs, each with a started task
select pgflow_tests.setup_flow('sequential');
select run_id as run_a from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as run_b from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_a', 'first');
select count(*) from pgflow_tests.start_task(:'run_b', 'first');
select pgflow._lock_task_reports(array[:'run_b'::uuid, gen_random_uuid(), null, :'run_a'::uuid, :'run_b'::uuid]);

-- TEST: both runs are locked FOR UPDATE by this transaction (row locks show in the xmax:
-- pgrowlocks is not installed); repeats, NULLs and unknown ids change nothing
select is(
  (select count(*)::int from pgflow.runs
   where run_id in (:'run_a', :'run_b') and xmax::text::bigint = txid_current() % 4294967296),
  2,
  'both run rows are locked by this transaction'
);
select is(
  (select count(*)::int from pgflow.runs where xmax::text::bigint = txid_current() % 4294967296),
  2,
  'no other run is locked'
);

-- (that the step states and tasks are left unlocked, so a claim or a sweep skipping locked
-- rows is never kept from them by a report, needs a second session: see
-- tests/integration/test_report_lock_races.py)

-- TEST: an empty or NULL array locks nothing and does not raise
select lives_ok(
  $$select pgflow._lock_task_reports('{}'::uuid[]), pgflow._lock_task_reports(null)$$,
  'an empty or NULL array locks nothing'
);

select * from finish();
rollback;
