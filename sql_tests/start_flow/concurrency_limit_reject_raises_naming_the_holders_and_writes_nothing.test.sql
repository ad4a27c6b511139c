begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: flow rej: at most 2 runs per key, on_limit reject; two runs of key ck hold the slots
-- (fixed run ids, to read them in the message; the second was started with idempotency key K)
select pgflow_tests.limited_flow('rej', 2, 'reject');
select pgflow_tests.keyed_run('rej', 'ck', '00000000-0000-0000-0000-0000000000a1');
select run_id as keyed_holder
from pgflow.start_flow('rej', '{}', '00000000-0000-0000-0000-0000000000a2', idempotency_key => 'K',
                       concurrency_key => 'ck') \gset
select pgflow_tests.write_counts()::text as before \gset

-- TEST: a third start of the key raises configuration_limit_exceeded naming both holders
select throws_ok(
  $$select * from pgflow.start_flow('rej', '{}', concurrency_key => 'ck')$$,
  '53400',
  'start_flow: concurrency limit of flow ''rej'' for key ''ck'' is reached (2 of 2): held by run '
    || '00000000-0000-0000-0000-0000000000a1, 00000000-0000-0000-0000-0000000000a2',
  'over the limit, on_limit reject raises 53400 naming the holders'
);

-- TEST: the DETAIL lists the holders too
create function pg_temp.reject_detail() returns text language plpgsql as $$
declare
  v_detail text;
begin
  perform * from pgflow.start_flow('rej', '{}', concurrency_key => 'ck');
  return null;
exception when configuration_limit_exceeded then
  get stacked diagnostics v_detail = pg_exception_detail;
  return v_detail;
end;
$$;
select is(
  pg_temp.reject_detail(),
  'Runs holding the slots: 00000000-0000-0000-0000-0000000000a1, 00000000-0000-0000-0000-0000000000a2. '
    || 'Runs queued for one: 0.',
  'the detail lists the runs holding the slots'
);

-- TEST: nothing was written; in particular no queued run
select is(pgflow_tests.write_counts()::text, :'before', 'the rejected starts wrote nothing');
select is((select count(*)::int from pgflow.runs where status = 'queued'), 0, 'no run is queued');

-- TEST: a repeat of a holder's own keyed start is a duplicate, not refused
select results_eq(
  $$select run_id, duplicate from pgflow.start_flow('rej', '{}', idempotency_key => 'K', concurrency_key => 'ck')$$,
  format($$values (%L::uuid, true)$$, :'keyed_holder'),
  'the same idempotency key returns its run although the key is full'
);

-- TEST: another key of the same flow still starts (the limit is per key)
select results_eq(
  $$select status from pgflow.start_flow('rej', '{}', concurrency_key => 'other')$$,
  $$values ('started'::text)$$,
  'a run with another key starts'
);

select * from finish();
rollback;
