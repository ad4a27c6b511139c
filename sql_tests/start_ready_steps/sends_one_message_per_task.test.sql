begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: producer -> mapper (map); mapper made ready with 3 tasks by hand
select pgflow_tests.setup_flow('map_chain');
select run_id from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
update pgflow.step_states set remaining_deps = 0, initial_tasks = 3
where run_id = :'run_id' and step_slug = 'mapper';
select pgflow.start_ready_steps(:'run_id');

-- TEST: tasks 0..2 are created, queued, each with its message
select results_eq(
  format($$select task_index, status, attempts_count from pgflow.step_tasks
           where run_id = %L and step_slug = 'mapper' order by task_index$$, :'run_id'),
  $$values (0, 'queued'::text, 0), (1, 'queued', 0), (2, 'queued', 0)$$,
  'one queued task per index 0..initial_tasks-1'
);

-- TEST: message bodies match their tasks
select results_eq(
  format($$select q.message from pgflow.step_tasks as t
           join pgmq.q_map_chain as q on q.msg_id = t.message_id
           where t.run_id = %L and t.step_slug = 'mapper' order by t.task_index$$, :'run_id'),
  format($$select jsonb_build_object('flow_slug', 'map_chain', 'run_id', %L::uuid,
                                     'step_slug', 'mapper', 'task_index', i)
           from generate_series(0, 2) as i order by i$$, :'run_id'),
  'each message is the pointer {flow_slug, run_id, step_slug, task_index} of its task'
);

-- TEST: started with remaining_tasks 3
select is(
  (select remaining_tasks from pgflow.step_states where run_id = :'run_id' and step_slug = 'mapper'),
  3,
  'remaining_tasks is set to initial_tasks'
);

select * from finish();
rollback;
