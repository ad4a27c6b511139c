begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: producer (single) -> mapper (map) -> reducer; producer returns a NULL output
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'producer') as msg_id \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'producer');
create temp table returned as
  select * from pgflow.complete_task(:'run_id', 'producer', 0, null);

-- TEST: the run fails at once
select results_eq(
  format($$select status, failed_at is not null, completed_at from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true, null::timestamptz)$$,
  'the run is failed by a NULL output feeding a map'
);

-- TEST: the task is failed, keeps the offending output and explains the violation
select results_eq(
  format($$select status, output, error_message, failed_at is not null
           from pgflow.step_tasks where run_id = %L and step_slug = 'producer'$$, :'run_id'),
  $$values ('failed'::text, null::jsonb,
           '[TYPE_VIOLATION] Produced null instead of array'::text, true)$$,
  'the task is failed with the output stored and a [TYPE_VIOLATION] error'
);
select results_eq(
  'select status, error_message from returned',
  $$values ('failed'::text, '[TYPE_VIOLATION] Produced null instead of array'::text)$$,
  'complete_task returns the failed task row'
);

-- TEST: the step is failed with a message naming both steps
select results_eq(
  format($$select status, error_message, output from pgflow.step_states
           where run_id = %L and step_slug = 'producer'$$, :'run_id'),
  $$values ('failed'::text,
           '[TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced null'::text,
           null::jsonb)$$,
  'the producer step is failed with the map/dependency explanation'
);

-- TEST: nothing downstream starts, the message is archived
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug <> 'producer'),
  0,
  'no downstream task is created'
);
select ok(
  pgflow_tests.message_exists('map_chain', :msg_id::bigint, 'a'),
  'the producer message is archived'
);

select * from finish();
rollback;
