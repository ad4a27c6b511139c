begin;
select plan(3);

-- SETUP: runs of two flows with events (started, completed)
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.setup_flow('two_roots');
select run_id as gone1 from pgflow.start_flow('sequential', '{"n": 1}') \gset
select run_id as gone2 from pgflow.start_flow('sequential', '{"n": 2}') \gset
select pgflow_tests.poll_and_complete('sequential');
select run_id as kept from pgflow.start_flow('two_roots', '{}') \gset
create temp table kept_events as select * from pgflow.run_events where run_id = :'kept';
select ok((select count(*) from pgflow.run_events where run_id in (:'gone1', :'gone2')) >= 5,
  'precondition: the sequential runs have events');

-- TEST: the flow's run events go with its runs
select pgflow.delete_flow_and_data('sequential');
select is((select count(*)::int from pgflow.run_events where run_id in (:'gone1', :'gone2')), 0,
  'no event of the deleted flow''s runs is left');

-- TEST: the other flow's events are kept
select set_eq($$select * from pgflow.run_events$$, $$select * from kept_events$$,
  'exactly the two_roots run''s events are left');

select * from finish();
rollback;
