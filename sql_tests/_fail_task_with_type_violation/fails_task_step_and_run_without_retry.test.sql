begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map), 3 attempts allowed; producer's task started, and it
-- produced an object (run 1) or JSON null (run 2)
select pgflow.create_flow('typed', max_attempts => 3);
select pgflow.add_step('typed', 'producer');
select pgflow.add_step('typed', 'mapper', array['producer'], step_type => 'map');
select run_id as r1 from pgflow.start_flow('typed', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('typed', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'r1', 'producer');
select count(*) from pgflow_tests.start_task(:'r2', 'producer');
select pgflow._fail_task_with_type_violation(t, 'mapper', '{"a": 1}', 'object')
from pgflow.step_tasks as t where t.run_id = :'r1' and t.step_slug = 'producer';
select pgflow._fail_task_with_type_violation(t, 'mapper', 'null', 'null')
from pgflow.step_tasks as t where t.run_id = :'r2' and t.step_slug = 'producer';

-- TEST: the task fails at once (no retry), keeping the offending output
select results_eq(
  format($$select status, attempts_count, output, error_message, failed_at is not null
           from pgflow.step_tasks where run_id = %L and step_slug = 'producer'$$, :'r1'),
  $$values ('failed'::text, 1, '{"a": 1}'::jsonb, '[TYPE_VIOLATION] Produced object instead of array'::text, true)$$,
  'the task is failed with its output and a [TYPE_VIOLATION] error, though attempts remain'
);
select is(
  (select error_message from pgflow.step_tasks where run_id = :'r2' and step_slug = 'producer'),
  '[TYPE_VIOLATION] Produced null instead of array',
  'the error names the produced type (null)'
);

-- TEST: the step fails, naming the map and the dependency
select results_eq(
  format($$select status, error_message from pgflow.step_states where run_id = %L and step_slug = 'producer'$$, :'r1'),
  $$values ('failed'::text, '[TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced object'::text)$$,
  'the step is failed with the map step''s expectation'
);

-- TEST: the runs fail and lose their messages
select is(
  (select array_agg(status order by run_id = :'r1' desc) from pgflow.runs),
  array['failed', 'failed'],
  'both runs are failed'
);
select results_eq(
  $$select pgflow_tests.queue_count('typed'), pgflow_tests.queue_count('typed', 'a')$$,
  $$values (0::bigint, 2::bigint)$$,
  'the tasks'' messages are archived'
);

select * from finish();
rollback;
