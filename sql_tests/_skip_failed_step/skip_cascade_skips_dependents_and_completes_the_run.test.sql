begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: bad (when_exhausted skip-cascade) -> after -> end; bad's task started and failed
select pgflow.create_flow('cascade_flow', max_attempts => 1);
select pgflow.add_step('cascade_flow', 'bad', when_exhausted => 'skip-cascade');
select pgflow.add_step('cascade_flow', 'after', array['bad']);
select pgflow.add_step('cascade_flow', 'end', array['after']);
select run_id from pgflow.start_flow('cascade_flow', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'bad');
update pgflow.step_tasks set status = 'failed', failed_at = now(), error_message = 'boom'
where run_id = :'run_id' and step_slug = 'bad';
select pgflow._skip_failed_step(ss, s, 'boom')
from pgflow.step_states as ss
join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
where ss.run_id = :'run_id' and ss.step_slug = 'bad';

-- TEST: the step and every transitive dependent are skipped
select results_eq(
  format($$select step_slug, status, skip_reason, error_message from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'skipped'::text, 'dependency_skipped'::text, null::text),
           ('bad', 'skipped', 'handler_failed', 'boom'),
           ('end', 'skipped', 'dependency_skipped', null)$$,
  'bad: handler_failed; after and end: dependency_skipped'
);

-- TEST: each step counted once; nothing left, so the run completes
select results_eq(
  format($$select status, remaining_steps, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, 0, null::jsonb)$$,
  'remaining_steps 3 -> 0 and the run completes with output NULL'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id'),
  1,
  'no task was created for the skipped dependents'
);

select * from finish();
rollback;
