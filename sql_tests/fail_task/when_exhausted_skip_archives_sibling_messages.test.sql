begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: root map of 3 (when_exhausted skip); tasks 0 and 1 started, task 2 queued
select pgflow.create_flow('skip_siblings', max_attempts => 1);
select pgflow.add_step('skip_siblings', 'items', step_type => 'map', when_exhausted => 'skip');
select pgflow.add_step('skip_siblings', 'other');
select run_id from pgflow.start_flow('skip_siblings', '[1, 2, 3]'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'items', 1);
select pgflow_tests.start_and_fail_task(:'run_id', 'items', 0);

-- TEST: every message of the skipped step is archived
select is(
  (select count(*)::int from pgflow.step_tasks as t
   where t.run_id = :'run_id' and t.step_slug = 'items'
     and pgflow_tests.message_exists('skip_siblings', t.message_id, 'a')),
  3,
  'the failed, the started and the queued sibling messages are archived'
);
select ok(
  pgflow_tests.message_exists('skip_siblings', pgflow_tests.task_msg_id(:'run_id', 'other'), 'q'),
  'messages of other steps stay queued'
);

-- TEST: a late completion of a sibling does not revive the step
select pgflow.complete_task(:'run_id', 'items', 1, '"late"'::jsonb);
select results_eq(
  format($$select status, output from pgflow.step_states where run_id = %L and step_slug = 'items'$$, :'run_id'),
  $$values ('skipped'::text, null::jsonb)$$,
  'the skipped step stays skipped'
);
select is(
  (select remaining_steps from pgflow.runs where run_id = :'run_id'),
  1,
  'remaining_steps was decremented once'
);

select * from finish();
rollback;
