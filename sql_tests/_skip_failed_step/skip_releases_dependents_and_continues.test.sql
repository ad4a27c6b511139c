begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: bad (when_exhausted skip) -> after; bad's task started and failed (as _fail_task
-- leaves it before calling _skip_failed_step)
select pgflow.create_flow('skip_flow', max_attempts => 1);
select pgflow.add_step('skip_flow', 'bad', when_exhausted => 'skip');
select pgflow.add_step('skip_flow', 'after', array['bad']);
select run_id from pgflow.start_flow('skip_flow', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'bad');
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'boom'
where run_id = :'run_id' and step_slug = 'bad';
select pgflow._archive_task_message(:'run_id', 'bad', 0);
select pgflow._skip_failed_step(ss, s, 'boom')
from pgflow.step_states as ss
join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
where ss.run_id = :'run_id' and ss.step_slug = 'bad';

-- TEST: the step is skipped with handler_failed and keeps the error
select results_eq(
  format($$select status, skip_reason, error_message, remaining_tasks, skipped_at is not null
           from pgflow.step_states where run_id = %L and step_slug = 'bad'$$, :'run_id'),
  $$values ('skipped'::text, 'handler_failed'::text, 'boom'::text, null::int, true)$$,
  'status skipped, skip_reason handler_failed, error_message kept, remaining_tasks NULL'
);

-- TEST: the dependent runs without it
select results_eq(
  format($$select ss.status, ss.remaining_deps, t.status from pgflow.step_states as ss
           join pgflow.step_tasks as t using (run_id, step_slug) where ss.run_id = %L and ss.step_slug = 'after'$$, :'run_id'),
  $$values ('started'::text, 0, 'queued'::text)$$,
  'after is released and started with a queued task'
);

-- TEST: the run lost exactly one step and goes on
select results_eq(
  format($$select status, remaining_steps from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('started'::text, 1)$$,
  'remaining_steps 2 -> 1, the run is still started'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'bad'),
  'failed',
  'the failed task row is left as the caller wrote it'
);

select * from finish();
rollback;
