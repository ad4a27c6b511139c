begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: bad (when_exhausted skip) -> after (single) and bad -> mapper (map); bad's task
-- started and failed for good, its message archived (as _fail_task leaves it)
select pgflow.create_flow('skip_flow', max_attempts => 1);
select pgflow.add_step('skip_flow', 'bad', when_exhausted => 'skip');
select pgflow.add_step('skip_flow', 'after', array['bad']);
select pgflow.add_step('skip_flow', 'mapper', array['bad'], step_type => 'map');
select run_id from pgflow.start_flow('skip_flow', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'bad');
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'boom'
where run_id = :'run_id' and step_slug = 'bad';
select pgflow._archive_task_message(:'run_id', 'bad', 0);

select pgflow._skip_exhausted_step(:'run_id', 'bad', 'skip', 'handler_failed', 'boom');

-- TEST: the step is skipped with the reason and the error given
select results_eq(
  format($$ select status, skip_reason, error_message, remaining_tasks, skipped_at is not null
            from pgflow.step_states where run_id = %L and step_slug = 'bad' $$, :'run_id'),
  $$ values ('skipped'::text, 'handler_failed'::text, 'boom'::text, null::int, true) $$,
  'bad: skipped, handler_failed, error boom kept, remaining_tasks NULL'
);

-- TEST: the dependents are released (no pending parent), the map learns it has 0 tasks,
-- but neither is started: the caller moves the run forward
select results_eq(
  format($$ select step_slug, status, remaining_deps, initial_tasks from pgflow.step_states
            where run_id = %L and step_slug <> 'bad' order by step_slug $$, :'run_id'),
  $$ values ('after'::text, 'created'::text, 0, 1), ('mapper', 'created', 0, 0) $$,
  'after and mapper: created, remaining_deps 0; mapper initial_tasks 0'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id' and step_slug <> 'bad'),
  0,
  'no task was created for the dependents'
);

-- TEST: the run lost exactly one step and is still started
select results_eq(
  format($$ select status, remaining_steps from pgflow.runs where run_id = %L $$, :'run_id'),
  $$ values ('started'::text, 2) $$,
  'remaining_steps 3 -> 2, run still started'
);

-- TEST: step:skipped recorded with the reason
select results_eq(
  format($$ select step_slug, details from pgflow.run_events where run_id = %L and event = 'step:skipped' $$, :'run_id'),
  $$ values ('bad'::text, '{"skip_reason": "handler_failed"}'::jsonb) $$,
  'one step:skipped event, for bad, with skip_reason handler_failed'
);

select * from finish();
rollback;
