begin;
select plan(2);

-- SETUP: the queue was dropped behind pgflow's back
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgmq.drop_queue('sequential');

-- TEST: only a notice is raised; the rows are still deleted
select lives_ok($$ select pgflow.delete_flow_and_data('sequential') $$,
  'a missing queue does not make delete_flow_and_data fail');
select is((select count(*)::int from pgflow.flows), 0, 'the flow row is deleted anyway');

select * from finish();
rollback;
