begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: two root maps over 3 elements; items task 0 started, tasks 1 and 2 queued;
-- the messages of "other" must stay
select pgflow.create_flow('skip_msgs');
select pgflow.add_step('skip_msgs', 'items', step_type => 'map');
select pgflow.add_step('skip_msgs', 'other', step_type => 'map');
select run_id from pgflow.start_flow('skip_msgs', '[1, 2, 3]'::jsonb) \gset
select pgflow_tests.start_task(:'run_id', 'items', 0);

-- TEST: all messages of the skipped step are archived, started or queued
select is(
  pgflow._cascade_force_skip_steps(:'run_id', 'items', 'handler_failed'),
  1,
  'one step is skipped'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t
   where t.run_id = :'run_id' and t.step_slug = 'items'
     and pgflow_tests.message_exists('skip_msgs', t.message_id, 'a')),
  3,
  'the started and the queued messages of the skipped step are archived'
);
select is(
  (select count(*)::int from pgflow.step_tasks as t
   where t.run_id = :'run_id' and t.step_slug = 'other'
     and pgflow_tests.message_exists('skip_msgs', t.message_id, 'q')),
  3,
  'messages of other steps stay in the queue'
);
select is(
  pgflow_tests.queue_count('skip_msgs'),
  3::bigint,
  'only the other step''s messages remain queued'
);

select * from finish();
rollback;
