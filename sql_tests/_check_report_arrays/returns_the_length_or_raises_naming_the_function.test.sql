begin;
select plan(5);

-- TEST: consistent arrays give their length; NULL attempts are allowed
select is(pgflow._check_report_arrays('complete_tasks', array[gen_random_uuid()], array['s'], array[0],
  1, 'outputs', null), 1, 'one report');
select is(pgflow._check_report_arrays('fail_tasks', null, null, null, null, 'error_messages', null), 0,
  'NULL arrays: 0');

-- TEST: lengths that differ and NULL keys raise, naming the function and the payload
select throws_ok(
  $$select pgflow._check_report_arrays('fail_tasks', array[gen_random_uuid()], array['s'], array[0], 1,
      'error_messages', array[1, 2])$$,
  '22023',
  'fail_tasks: run_ids, step_slugs, task_indexes, error_messages and attempts must have the same length (got 1, 1, 1, 1 and 2)',
  'attempts of another length raise'
);
select throws_ok(
  $$select pgflow._check_report_arrays('complete_tasks', array[gen_random_uuid()], array['s'], array[0], 2,
      'outputs', null)$$,
  '22023',
  'complete_tasks: run_ids, step_slugs, task_indexes, outputs and attempts must have the same length (got 1, 1, 1, 2 and NULL)',
  'payloads of another length raise'
);
select throws_ok(
  $$select pgflow._check_report_arrays('complete_tasks', array[gen_random_uuid()], array['s'], array[null]::int[], 1,
      'outputs', null)$$,
  '22004',
  'complete_tasks: run_ids, step_slugs and task_indexes may not contain NULL',
  'a NULL key raises'
);

select * from finish();
rollback;
