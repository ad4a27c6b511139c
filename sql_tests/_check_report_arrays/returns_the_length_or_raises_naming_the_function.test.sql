begin;
select plan(7);

-- TEST: consistent arrays give their length; NULL attempts are allowed
select is(pgflow._check_report_arrays('complete_tasks', array[gen_random_uuid()], array['s'], array[0],
  array['1']::jsonb[], 'outputs', null), 1, 'one report');
select is(pgflow._check_report_arrays('fail_tasks', null, null, null, null::text[], 'error_messages', null), 0,
  'NULL arrays: 0');

-- TEST: lengths that differ and NULL keys raise, naming the function and the payload
select throws_ok(
  $$select pgflow._check_report_arrays('fail_tasks', array[gen_random_uuid()], array['s'], array[0], array['e'],
      'error_messages', array[1, 2])$$,
  '22023',
  'fail_tasks: run_ids, step_slugs, task_indexes, error_messages and attempts must have the same length (got 1, 1, 1, 1 and 2)',
  'attempts of another length raise'
);
select throws_ok(
  $$select pgflow._check_report_arrays('complete_tasks', array[gen_random_uuid()], array['s'], array[0],
      array['1', '2']::jsonb[], 'outputs', null)$$,
  '22023',
  'complete_tasks: run_ids, step_slugs, task_indexes, outputs and attempts must have the same length (got 1, 1, 1, 2 and NULL)',
  'payloads of another length raise'
);
select throws_ok(
  $$select pgflow._check_report_arrays('complete_tasks', array[gen_random_uuid()], array['s'], array[null]::int[],
      array['1']::jsonb[], 'outputs', null)$$,
  '22004',
  'complete_tasks: run_ids, step_slugs and task_indexes may not contain NULL',
  'a NULL key raises'
);

-- TEST: arrays that are not one-dimensional from index 1 raise (reports pair by position)
select throws_ok(
  $$select pgflow._check_report_arrays('complete_tasks', '[0:0]={00000000-0000-0000-0000-000000000001}'::uuid[],
      '[0:0]={s}'::text[], '[0:0]={0}'::int[], '[0:0]={1}'::jsonb[], 'outputs', null)$$,
  '22023',
  'complete_tasks: run_ids, step_slugs, task_indexes, outputs and attempts must be one-dimensional arrays starting at index 1',
  'arrays from index 0 raise'
);
select throws_ok(
  $$select pgflow._check_report_arrays('fail_tasks', array[gen_random_uuid()], array['s'], array[0], array['e'],
      'error_messages', array[[1]])$$,
  '22023',
  'fail_tasks: run_ids, step_slugs, task_indexes, error_messages and attempts must be one-dimensional arrays starting at index 1',
  'a two-dimensional attempts array raises'
);

select * from finish();
rollback;
