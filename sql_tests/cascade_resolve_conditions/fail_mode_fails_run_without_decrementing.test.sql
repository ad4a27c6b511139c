begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a root "other" and gate (requires {"go": true}, when_unmet fail) -> after
select pgflow.create_flow('cond_fail');
select pgflow.add_step('cond_fail', 'other');
select pgflow.add_step('cond_fail', 'gate', required_input_pattern => '{"go": true}', when_unmet => 'fail');
select pgflow.add_step('cond_fail', 'after', array['gate']);
select run_id from pgflow.start_flow('cond_fail', '{"go": false}'::jsonb) \gset

-- TEST: the step fails with 'Condition not met'
select results_eq(
  format($$select status, error_message, failed_at is not null, skip_reason
           from pgflow.step_states where run_id = %L and step_slug = 'gate'$$, :'run_id'),
  $$values ('failed'::text, 'Condition not met'::text, true, null::text)$$,
  'the unmet step is failed with error_message ''Condition not met'''
);

-- TEST: the run fails, remaining_steps untouched
select results_eq(
  format($$select status, failed_at is not null, remaining_steps
           from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('failed'::text, true, 3)$$,
  'the run is failed and remaining_steps is not decremented'
);

-- TEST: nothing else is started
select results_eq(
  format($$select step_slug, status, started_at is null, cancelled_at is not distinct from now()
           from pgflow.step_states where run_id = %L and step_slug <> 'gate' order by step_slug$$, :'run_id'),
  $$values ('after'::text, 'cancelled'::text, true, true), ('other', 'cancelled', true, true)$$,
  'the other steps are never started: the run failure cancels them (cancelled_at now)'
);
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run_id'), 0, 'no task is created');
select is(pgflow_tests.queue_count('cond_fail'), 0::bigint, 'no message is queued');

-- TEST: direct call on the failed run returns false
select is(pgflow.cascade_resolve_conditions(:'run_id'), false, 'returns false for a failed run');

select * from finish();
rollback;
