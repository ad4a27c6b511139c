begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a flow waiting for "go", one run (to see that nothing is written anywhere).
select pgflow.create_flow('unk', max_attempts => 1);
select pgflow.add_step('unk', 'gate');
select pgflow.add_wait('unk', 'gate', 'go');
select run_id from pgflow.start_flow('unk', '{}'::jsonb) \gset
select count(*)::int as events_before from pgflow.run_events \gset

-- TEST: an unknown run raises no_data_found (P0002) naming the run
select throws_ok(
  $$select * from pgflow.send_signal('00000000-0000-0000-0000-000000000001', 'go', '{}', 'k')$$,
  'P0002', 'send_signal: run 00000000-0000-0000-0000-000000000001 does not exist',
  'an unknown run raises P0002'
);
select throws_ok(
  $$select * from pgflow.send_signal(null, 'go')$$,
  'P0002', 'send_signal: run NULL does not exist',
  'a NULL run id raises P0002 too'
);

-- TEST: nothing was written
select is((select count(*)::int from pgflow.signals), 0, 'no signal stored');
select is((select count(*)::int from pgflow.run_events), :events_before, 'no event recorded');

select * from finish();
rollback;
