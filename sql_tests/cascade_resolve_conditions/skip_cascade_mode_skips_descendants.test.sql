begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: gate (requires {"go": true}, skip-cascade) -> mid -> leaf; plus root "other"
select pgflow.create_flow('cascade_flow');
select pgflow.add_step('cascade_flow', 'gate',
  required_input_pattern => '{"go": true}', when_unmet => 'skip-cascade');
select pgflow.add_step('cascade_flow', 'mid', array['gate']);
select pgflow.add_step('cascade_flow', 'leaf', array['mid']);
select pgflow.add_step('cascade_flow', 'other');
select run_id from pgflow.start_flow('cascade_flow', '{"go": false}'::jsonb) \gset

-- TEST: the gate and all its descendants are skipped, with the right reasons
select results_eq(
  format($$select step_slug, status, skip_reason from pgflow.step_states
           where run_id = %L order by step_slug$$, :'run_id'),
  $$values ('gate'::text, 'skipped'::text, 'condition_unmet'::text),
           ('leaf', 'skipped', 'dependency_skipped'),
           ('mid', 'skipped', 'dependency_skipped'),
           ('other', 'started', null)$$,
  'gate is skipped with condition_unmet, its descendants with dependency_skipped'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps is decremented once per skipped step'
);
select is(
  (select count(*)::int from pgflow.step_tasks where run_id = :'run_id'),
  1,
  'only the unrelated root step has a task'
);

-- TEST: the run completes when the last step finishes; output omits skipped leaves
select pgflow_tests.start_and_complete_task(:'run_id', 'other', 0, '"done"'::jsonb);
select results_eq(
  format($$select status, output from pgflow.runs where run_id = %L$$, :'run_id'),
  $$values ('completed'::text, '{"other": "done"}'::jsonb)$$,
  'the run completes with only the completed leaf in its output'
);

select * from finish();
rollback;
