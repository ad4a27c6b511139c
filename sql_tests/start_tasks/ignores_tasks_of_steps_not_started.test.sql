begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: a root map with 2 queued tasks whose step has been skipped meanwhile
select pgflow_tests.setup_flow('root_map');
select run_id from pgflow.start_flow('root_map', '[1, 2]'::jsonb) \gset
select pgflow_tests.task_msg_id(:'run_id', 'items', 1) as msg_id \gset
update pgflow.step_states
set status = 'skipped', skip_reason = 'condition_unmet', skipped_at = now(), remaining_tasks = null
where run_id = :'run_id' and step_slug = 'items';
select pgflow_tests.ensure_worker('root_map');

-- TEST: queued tasks of a step that is not started are ignored
select is(
  (select count(*)::int from pgflow.start_tasks('root_map', array[:msg_id::bigint],
     '11111111-1111-1111-1111-111111111111'::uuid)),
  0,
  'a queued task whose step is not started is not returned'
);
select results_eq(
  format($$select status, attempts_count, started_at from pgflow.step_tasks
           where run_id = %L and task_index = 1$$, :'run_id'),
  $$values ('queued'::text, 0, null::timestamptz)$$,
  'the task is left queued with no attempt'
);
select cmp_ok(
  pgflow_tests.message_vt_seconds('root_map', :msg_id::bigint),
  '<=',
  0::numeric,
  'the message visibility is not extended'
);

select * from finish();
rollback;
