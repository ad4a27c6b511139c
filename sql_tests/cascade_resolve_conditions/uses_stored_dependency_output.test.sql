begin;
select plan(2);
select pgflow_tests.reset_db();

-- SETUP: first -> gated (requires {"first": "stored"}). In two runs "first" is marked
-- completed by hand with different stored outputs while its task output says otherwise.
select pgflow.create_flow('stored');
select pgflow.add_step('stored', 'first');
select pgflow.add_step('stored', 'gated', array['first'], required_input_pattern => '{"first": "stored"}');
select run_id as run_match from pgflow.start_flow('stored', '{}'::jsonb) \gset
select run_id as run_other from pgflow.start_flow('stored', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_match', 'first');
select count(*) from pgflow_tests.start_task(:'run_other', 'first');
update pgflow.step_tasks set status = 'completed', completed_at = now(), output = '"task output"'
where step_slug = 'first';
update pgflow.step_states
set status = 'completed', remaining_tasks = 0, completed_at = now(),
    output = case when run_id = :'run_match' then '"stored"'::jsonb else '"other"'::jsonb end
where step_slug = 'first';
update pgflow.step_states set remaining_deps = 0 where step_slug = 'gated';

-- TEST: the condition reads step_states.output
select pgflow.cascade_resolve_conditions(:'run_match');
select pgflow.cascade_resolve_conditions(:'run_other');
select is(
  (select status from pgflow.step_states where run_id = :'run_match' and step_slug = 'gated'),
  'created',
  'the stored output matches: the step is not skipped (left for start_ready_steps)'
);
select is(
  (select status from pgflow.step_states where run_id = :'run_other' and step_slug = 'gated'),
  'skipped',
  'the stored output does not match: the step is skipped although the task output is irrelevant'
);

select * from finish();
rollback;
