begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: the task of "first" is started once
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'first') as msg_id \gset
select count(*) from pgflow_tests.start_task(:'run_id', 'first');

-- TEST: a second start of a started task returns nothing and changes nothing
select is(
  (select count(*)::int from pgflow.start_tasks('sequential', array[:msg_id::bigint],
     '11111111-1111-1111-1111-111111111111'::uuid)),
  0,
  'a started task is not returned again (duplicate delivery)'
);
select is(
  (select attempts_count from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  1,
  'attempts_count is not bumped for an ignored task'
);

-- TEST: a completed task is ignored too
select pgflow.complete_task(:'run_id', 'first', 0, '"done"'::jsonb);
select is(
  (select count(*)::int from pgflow.start_tasks('sequential', array[:msg_id::bigint],
     '11111111-1111-1111-1111-111111111111'::uuid)),
  0,
  'a completed task is not returned'
);
select is(
  (select status from pgflow.step_tasks where run_id = :'run_id' and step_slug = 'first'),
  'completed',
  'the completed task stays completed'
);

select * from finish();
rollback;
