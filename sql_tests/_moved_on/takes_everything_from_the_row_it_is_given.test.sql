begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: a run row built by hand, of a run that is not in pgflow.runs
select jsonb_populate_record(null::pgflow.runs,
  '{"run_id": "00000000-0000-0000-0000-0000000000aa", "flow_slug": "gone", "status": "expired"}') as run \gset

-- TEST: run_id and status come from the row given, the detail quotes the expected status
select results_eq(
  format($$ select * from pgflow._moved_on(%L::pgflow.runs, 'queued') $$, :'run'),
  $$ values ('00000000-0000-0000-0000-0000000000aa'::uuid, 'expired'::text, false,
             'run is expired, not queued: nothing done'::text) $$,
  'the result is read from the row: (its run_id, expired, false, "run is expired, not queued: nothing done")'
);

-- TEST: it reads no table (immutable), so the result of a call depends on its arguments only
select is(
  (select provolatile from pg_proc where oid = 'pgflow._moved_on(pgflow.runs, text)'::regprocedure),
  'i',
  '_moved_on is immutable'
);

select * from finish();
rollback;
