begin;
select plan(5);
select pgflow_tests.reset_db();

-- SETUP: a root map with two tasks, both messages read and claimed once
select pgflow_tests.setup_flow('root_map');
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select pgflow_tests.ensure_worker('root_map');
select array_agg(message_id order by task_index) as ids from pgflow.step_tasks where run_id = :'run_id' \gset
select is(
  (select count(*)::int from pgflow._start_tasks('root_map', :'ids'::bigint[], '11111111-1111-1111-1111-111111111111', false)),
  2,
  'the first call claims both tasks'
);

-- TEST: a duplicate delivery claims nothing
select is(
  (select count(*)::int from pgflow._start_tasks('root_map', :'ids'::bigint[], '11111111-1111-1111-1111-111111111111', true)),
  0,
  'a second call for the same messages returns nothing'
);
select is(
  (select array_agg(attempts_count order by task_index) from pgflow.step_tasks where run_id = :'run_id'),
  array[1, 1],
  'attempts_count stays 1'
);

-- TEST: NULL, empty, and another flow's ids return nothing
select is(
  (select count(*)::int from pgflow._start_tasks('root_map', null, '11111111-1111-1111-1111-111111111111', true))
  + (select count(*)::int from pgflow._start_tasks('root_map', '{}', '11111111-1111-1111-1111-111111111111', true)),
  0,
  'NULL and empty msg_ids return nothing'
);
select run_id as other from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select is(
  (select count(*)::int from pgflow._start_tasks('root_map', array[pgflow_tests.task_msg_id(:'other', 'first')],
                                                 '11111111-1111-1111-1111-111111111111', true)),
  0,
  'a message id of another flow is ignored'
);

select * from finish();
rollback;
