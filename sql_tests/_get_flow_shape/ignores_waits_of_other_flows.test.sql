begin;
select plan(2);

-- SETUP: two flows with a step of the same slug; only the first one waits
select pgflow_tests.reset_db();
select pgflow.create_flow('waiting');
select pgflow.add_step('waiting', 'approved');
select pgflow.add_wait('waiting', 'approved', 'approved');
select pgflow.create_flow('plain');
select pgflow.add_step('plain', 'approved');

-- TEST: the wait belongs to its own flow's step
select is(pgflow._get_flow_shape('plain'), pgflow_tests.shape(pgflow_tests.shape_step('approved')),
  'a step with the same slug in another flow has no wait');
select is(pgflow._get_flow_shape('waiting') #>> '{steps,0,wait,signal}', 'approved',
  'the waiting flow''s step has its wait');

select * from finish();
rollback;
