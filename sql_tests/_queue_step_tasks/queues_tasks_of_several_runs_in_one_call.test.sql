begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map); in two runs mapper is set started by hand, as a caller
-- would, with 2 and 3 tasks
select pgflow_tests.setup_flow('map_chain');
select run_id as r1 from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
update pgflow.step_states as ss
set status = 'started', started_at = now(), remaining_deps = 0,
    initial_tasks = case when ss.run_id = :'r1' then 2 else 3 end,
    remaining_tasks = case when ss.run_id = :'r1' then 2 else 3 end
where ss.step_slug = 'mapper';
select pgmq.purge_queue('map_chain');
select pgflow._queue_step_tasks('map_chain', 0, array[:'r1', :'r2']::uuid[], array['mapper', 'mapper'], array[2, 3]);

-- TEST: one queued task per index, for both runs
select results_eq(
  format($$select run_id = %L, task_index, status, attempts_count from pgflow.step_tasks
           where step_slug = 'mapper' order by run_id = %L desc, task_index$$, :'r1', :'r1'),
  $$values (true, 0, 'queued'::text, 0), (true, 1, 'queued', 0),
           (false, 0, 'queued', 0), (false, 1, 'queued', 0), (false, 2, 'queued', 0)$$,
  'tasks 0..n-1 of each step are created with status queued'
);

-- TEST: one send_batch, in array order then task_index order
select is(pgflow_tests.queue_count('map_chain'), 5::bigint, 'one message per task');
select results_eq(
  format($$select run_id = %L, task_index from pgflow.step_tasks where step_slug = 'mapper' order by message_id$$, :'r1'),
  $$values (true, 0), (true, 1), (false, 0), (false, 1), (false, 2)$$,
  'message ids follow array order, then task_index'
);

-- TEST: each task is paired with its own message
select is(
  (select count(*)::int from pgflow.step_tasks as t
   join pgmq.q_map_chain as q on q.msg_id = t.message_id
   where t.step_slug = 'mapper'
     and q.message = jsonb_build_object('flow_slug', 'map_chain', 'run_id', t.run_id,
                                        'step_slug', t.step_slug, 'task_index', t.task_index)),
  5,
  'every task''s message points back at that task'
);

select * from finish();
rollback;
