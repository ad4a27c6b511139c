begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: three roots: "waiting" queued, "busy" started, "done" completed
select pgflow.create_flow('three_roots', max_attempts => 1);
select pgflow.add_step('three_roots', 'waiting');
select pgflow.add_step('three_roots', 'busy');
select pgflow.add_step('three_roots', 'done');
select run_id from pgflow.start_flow('three_roots', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'busy');
select pgflow_tests.start_and_complete_task(:'run_id', 'done');
select pgflow._fail_run(:'run_id', 'boom');

-- TEST: the run is failed, remaining_steps left as it was
select results_eq(
  format($$select status, failed_at is not null, completed_at, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true, null::timestamptz, 2)$$,
  'status failed, failed_at set, remaining_steps unchanged (2)'
);

-- TEST: no message of the run is left for a worker
select is(pgflow_tests.queue_count('three_roots'), 0::bigint, 'the queued and the started task''s messages left the queue');
select is(pgflow_tests.queue_count('three_roots', 'a'), 3::bigint, 'they are archived, not deleted');

-- TEST: unfinished steps and tasks are cancelled (cancelled_at now); finished ones keep theirs
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now() from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('busy'::text, 'cancelled'::text, true), ('done', 'completed', false), ('waiting', 'cancelled', true)$$,
  'the started steps are cancelled with cancelled_at now; the completed step stays completed'
);
select results_eq(
  format($$select step_slug, status, cancelled_at is not distinct from now() from pgflow.step_tasks
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('busy'::text, 'cancelled'::text, true), ('done', 'completed', false), ('waiting', 'cancelled', true)$$,
  'the started and the queued task are cancelled with cancelled_at now; the completed task stays completed'
);

select * from finish();
rollback;
