begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a 1 kB limit; run 1 of producer -> mapper (map), run 2 of sequential, first tasks started
select set_config('pgflow.max_payload_bytes', '1kB', true);
select pgflow_tests.setup_flow('map_chain');
select pgflow_tests.setup_flow('sequential');
select run_id as r1 from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'r1', 'producer');
select count(*) from pgflow_tests.start_task(:'r2', 'first');

-- TEST: failed / type_violation and refused / payload_too_large, each with its sentence
select results_eq(
  format($$select ord, outcome, reason, detail from pgflow._complete_tasks(
      array[1, 2], array[%L, %L]::uuid[], array['producer', 'first'], array[0, 0],
      array['{"a": 1}', to_jsonb(repeat('x', 2000))]::jsonb[], null)$$, :'r1', :'r2'),
  format($$values (1, 'failed'::text, 'type_violation'::text, '[TYPE_VIOLATION] Produced object instead of array'::text),
           (2, 'refused', 'payload_too_large',
            'Output of task first[0] of run %s is 2012 bytes, over the limit of 1024 bytes (setting pgflow.max_payload_bytes)')$$,
         :'r2'),
  'type_violation fails with the task''s error; payload_too_large is refused with the size sentence'
);

-- TEST: the type violation failed task, step and run
select results_eq(
  format($$select (select status from pgflow.step_tasks where run_id = %1$L), (select status from pgflow.runs where run_id = %1$L)$$, :'r1'),
  $$values ('failed'::text, 'failed'::text)$$,
  'run 1: task and run are failed'
);

-- TEST: the refused output wrote nothing
select results_eq(
  format($$select status, output from pgflow.step_tasks where run_id = %L$$, :'r2'),
  $$values ('started'::text, null::jsonb)$$,
  'run 2: the task is still started without output'
);
select is(pgflow_tests.queue_count('sequential'), 1::bigint, 'run 2: its message is not archived');

select * from finish();
rollback;
