begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two flows
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('two_roots');

-- TEST: the same key starts one run in each flow
select run_id as seq_run, duplicate as seq_duplicate
from pgflow.start_flow('sequential', '{}', idempotency_key => 'shared') \gset
select run_id as two_run, duplicate as two_duplicate
from pgflow.start_flow('two_roots', '{}', idempotency_key => 'shared') \gset
select is(array[:'seq_duplicate', :'two_duplicate']::boolean[], array[false, false],
  'both starts create their run (duplicate false)');
select results_eq(
  $$select flow_slug, idempotency_key from pgflow.runs order by flow_slug$$,
  $$values ('sequential'::text, 'shared'::text), ('two_roots', 'shared')$$,
  'two runs, one per flow, carry the key'
);

-- TEST: a further start of either flow with the key returns that flow's run
select results_eq(
  $$select run_id, duplicate from pgflow.start_flow('sequential', '{}', idempotency_key => 'shared')$$,
  format($$values (%L::uuid, true)$$, :'seq_run'),
  'sequential: the key returns the sequential run'
);
select results_eq(
  $$select run_id, duplicate from pgflow.start_flow('two_roots', '{}', idempotency_key => 'shared')$$,
  format($$values (%L::uuid, true)$$, :'two_run'),
  'two_roots: the key returns the two_roots run'
);

select * from finish();
rollback;
