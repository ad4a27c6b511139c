begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a root map over three elements queues three task messages
select pgflow_tests.setup_flow('root_map');
select pgflow.start_flow('root_map', '[1, 2, 3]');

-- TEST: qty bounds the batch; the messages read are hidden for vt seconds
select is((select count(*)::int from pgflow.read_tasks('root_map', 30, 2)), 2, 'reads at most qty messages');
select is(pgflow_tests.visible_count('root_map'), 1::bigint, 'the messages read are invisible');
select is(
  (select array_agg(m.message ->> 'step_slug') from pgflow.read_tasks('root_map', 30, 10) as m),
  array['items'], 'the rest comes next, with the task message body');
select is((select count(*)::int from pgflow.read_tasks('root_map', 30, 10)), 0,
  'nothing is visible any more');
select is((select count(*)::int from pgflow.read_tasks('root_map', 30, 0)), 0, 'qty 0 reads nothing');

select * from finish();
rollback;
