begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('root_map');

-- TEST: by default an input over 16 MiB is rejected, naming the flow, both sizes and the setting
select throws_ok(
  $$select * from pgflow.start_flow('sequential', jsonb_build_object('blob', repeat('x', 16777216)))$$,
  '54000',
  'Input of flow ''sequential'' is 16777236 bytes, over the limit of 16777216 bytes (setting pgflow.max_payload_bytes)',
  'a 16 MiB + 20 bytes input raises program_limit_exceeded'
);

-- TEST: the limit follows pgflow.max_payload_bytes (here 1 kB, for this transaction)
select set_config('pgflow.max_payload_bytes', '1kB', true);
select throws_like(
  $$select * from pgflow.start_flow('sequential', to_jsonb(repeat('x', 1013)))$$,
  'Input of flow ''sequential'' is 1025 bytes, over the limit of 1024 bytes%',
  'one byte over the configured limit raises'
);
select throws_ok(
  $$select * from pgflow.start_flow('root_map', (select jsonb_agg(repeat('x', 100)) from generate_series(1, 20)))$$,
  '54000', null,
  'an oversized root map array raises before any task is created'
);
select is(pgflow_tests.row_counts() - 'flows' - 'steps' - 'deps' - 'queues',
  '{"runs": 0, "step_states": 0, "step_tasks": 0}'::jsonb,
  'no run, step state or task was written');
select is(pgflow_tests.queue_count('sequential') + pgflow_tests.queue_count('root_map'), 0::bigint,
  'no message was sent');

-- TEST: up to the limit the run starts
select lives_ok(
  $$select * from pgflow.start_flow('sequential', to_jsonb(repeat('x', 1012)))$$,
  'an input of exactly the limit starts a run'
);
select is((select count(*)::int from pgflow.runs), 1, 'that run exists');

-- TEST: an invalid setting is reported and nothing is written
select set_config('pgflow.max_payload_bytes', '0', true);
select throws_ok(
  $$select * from pgflow.start_flow('sequential', '{}'::jsonb)$$,
  '22023', 'Invalid value ''0'' for setting pgflow.max_payload_bytes',
  'a limit of 0 raises invalid_parameter_value naming the setting'
);
select is((select count(*)::int from pgflow.runs), 1, 'no second run was created');

select * from finish();
rollback;
