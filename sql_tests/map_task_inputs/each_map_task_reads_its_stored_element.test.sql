begin;
select plan(9);
select pgflow_tests.reset_db();

-- SETUP: a root map over 4 items, and a chain whose dependent map maps a single step's array
select pgflow_tests.setup_flow('root_map');
select pgflow_tests.setup_flow('map_chain');
select run_id as root_run from pgflow.start_flow('root_map', '[10, {"k": "v"}, null, "s"]'::jsonb) \gset
select run_id as chain_run from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow_tests.poll_and_complete('map_chain', '["a", "b", "c"]'::jsonb);

-- TEST: each task's element is stored once, when its step starts
select results_eq(
  format($$select first_index, inputs from pgflow.map_task_inputs where run_id = %L$$, :'root_run'),
  $$values (0, '[10, {"k": "v"}, null, "s"]'::jsonb)$$,
  'a root map stores the elements of the run input (JSON null included), small ones in one chunk'
);
select results_eq(
  format($$select step_slug, first_index, inputs from pgflow.map_task_inputs where run_id = %L$$, :'chain_run'),
  $$values ('mapper'::text, 0, '["a", "b", "c"]'::jsonb)$$,
  'a dependent map stores the elements of its parent''s output'
);
select is(
  (select count(*)::int from pgflow.map_task_inputs where step_slug in ('producer', 'reducer')),
  0,
  'single steps store nothing'
);

-- TEST: a claim reads the stored element, not the array: replacing the arrays changes nothing
update pgflow.runs set input = '["changed"]' where run_id = :'root_run';
update pgflow.step_states set output = '["changed"]' where run_id = :'chain_run' and step_slug = 'producer';
select results_eq(
  $$select task_index, input from pgflow_tests.read_and_start('root_map', 30, 10) order by task_index$$,
  $$values (0, '10'::jsonb), (1, '{"k": "v"}'), (2, 'null'), (3, '"s"')$$,
  'root map tasks get their stored elements'
);
select results_eq(
  $$select task_index, input from pgflow_tests.read_and_start('map_chain', 30, 10) order by task_index$$,
  $$values (0, '"a"'::jsonb), (1, '"b"'), (2, '"c"')$$,
  'dependent map tasks get their stored elements'
);

-- TEST: elements are chunked by size (about 16 kB): 5 elements of 10 kB make 3 chunks, and
-- every task still gets its own element
select run_id as big_run from pgflow.start_flow('root_map',
  (select jsonb_agg(to_jsonb(i || repeat('x', 10000)) order by i) from generate_series(0, 4) as i)) \gset
select results_eq(
  format($$select first_index, jsonb_array_length(inputs) from pgflow.map_task_inputs
           where run_id = %L order by first_index$$, :'big_run'),
  $$values (0, 2), (2, 2), (4, 1)$$,
  'a chunk ends after the element that reaches the next 16384 bytes'
);
select results_eq(
  $$select task_index, left(input #>> '{}', 1) from pgflow_tests.read_and_start('root_map', 30, 10) order by task_index$$,
  $$values (0, '0'), (1, '1'), (2, '2'), (3, '3'), (4, '4')$$,
  'each task of a chunked map gets its own element'
);

-- TEST: a map task queued without a stored element (before 0.2.0) reads it from the array
select run_id as old_run from pgflow.start_flow('root_map', '["x", "y"]'::jsonb) \gset
delete from pgflow.map_task_inputs where run_id = :'old_run';
select results_eq(
  $$select task_index, input from pgflow_tests.read_and_start('root_map', 30, 10) order by task_index$$,
  $$values (0, '"x"'::jsonb), (1, '"y"')$$,
  'without a stored element the task gets the array''s'
);

-- TEST: the elements go with their runs
select pgflow.delete_flow_and_data('map_chain');
select is(
  (select count(*)::int from pgflow.map_task_inputs where run_id = :'chain_run'),
  0,
  'delete_flow_and_data deletes the elements of the flow''s runs'
);

select * from finish();
rollback;
