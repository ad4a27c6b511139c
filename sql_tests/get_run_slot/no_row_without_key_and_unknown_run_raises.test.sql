begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a limited flow and a flow without limit
select pgflow_tests.limited_flow('lim', 1, 'reject');
select pgflow_tests.limited_flow('free', null);
select run_id as unkeyed from pgflow.start_flow('lim', '{}') \gset
select pgflow_tests.keyed_run('free', 'ck') as free_keyed \gset

-- TEST: a run without concurrency key has no row
select is_empty(
  format($$select * from pgflow.get_run_slot(%L)$$, :'unkeyed'),
  'a run without concurrency_key: no row'
);

-- TEST: a keyed run of a flow without limit: limit NULL, it holds its slot
select results_eq(
  format($$select * from pgflow.get_run_slot(%L)$$, :'free_keyed'),
  format($$values ('ck'::text, null::int, 'queue'::text, null::int, array[%L]::uuid[])$$, :'free_keyed'),
  'a keyed run of a flow without limit: limit NULL, on_limit the default queue, itself the holder'
);

-- TEST: the flow's on_limit is reported
select pgflow_tests.keyed_run('lim', 'ck') as reject_keyed \gset
select is((select on_limit from pgflow.get_run_slot(:'reject_keyed')), 'reject', 'on_limit reject is reported');

-- TEST: an unknown run raises no_data_found (P0002), and a NULL run id too
select throws_ok(
  $$select * from pgflow.get_run_slot('00000000-0000-0000-0000-00000000dead')$$,
  'P0002', 'get_run_slot: run 00000000-0000-0000-0000-00000000dead does not exist',
  'an unknown run raises P0002'
);
select throws_ok(
  $$select * from pgflow.get_run_slot(null)$$,
  'P0002', 'get_run_slot: run NULL does not exist',
  'a NULL run id raises P0002'
);

select * from finish();
rollback;
