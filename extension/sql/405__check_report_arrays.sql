-- _check_report_arrays: the argument check of the batch report functions (complete_tasks,
-- fail_tasks).

create function pgflow._check_report_arrays(
  function_name text,
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  payloads anyarray,
  payload_name text,
  attempts int[]
)
returns int
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_n int := coalesce(cardinality(_check_report_arrays.run_ids), 0);
begin
  -- Reports pair up by position: every array one-dimensional, from index 1.
  if coalesce(array_ndims(_check_report_arrays.run_ids), 1) <> 1
     or coalesce(array_ndims(_check_report_arrays.step_slugs), 1) <> 1
     or coalesce(array_ndims(_check_report_arrays.task_indexes), 1) <> 1
     or coalesce(array_ndims(_check_report_arrays.payloads), 1) <> 1
     or coalesce(array_ndims(_check_report_arrays.attempts), 1) <> 1
     or coalesce(array_lower(_check_report_arrays.run_ids, 1), 1) <> 1
     or coalesce(array_lower(_check_report_arrays.step_slugs, 1), 1) <> 1
     or coalesce(array_lower(_check_report_arrays.task_indexes, 1), 1) <> 1
     or coalesce(array_lower(_check_report_arrays.payloads, 1), 1) <> 1
     or coalesce(array_lower(_check_report_arrays.attempts, 1), 1) <> 1 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: run_ids, step_slugs, task_indexes, %s and attempts must be '
                       'one-dimensional arrays starting at index 1',
                       _check_report_arrays.function_name, _check_report_arrays.payload_name);
  end if;
  if coalesce(cardinality(_check_report_arrays.step_slugs), 0) <> v_n
     or coalesce(cardinality(_check_report_arrays.task_indexes), 0) <> v_n
     or coalesce(cardinality(_check_report_arrays.payloads), 0) <> v_n
     or (_check_report_arrays.attempts is not null and cardinality(_check_report_arrays.attempts) <> v_n) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: run_ids, step_slugs, task_indexes, %s and attempts must have the same '
                       'length (got %s, %s, %s, %s and %s)',
                       _check_report_arrays.function_name, _check_report_arrays.payload_name, v_n,
                       coalesce(cardinality(_check_report_arrays.step_slugs), 0),
                       coalesce(cardinality(_check_report_arrays.task_indexes), 0),
                       coalesce(cardinality(_check_report_arrays.payloads), 0),
                       coalesce(cardinality(_check_report_arrays.attempts)::text, 'NULL'));
  end if;
  if array_position(_check_report_arrays.run_ids, null) is not null
     or array_position(_check_report_arrays.step_slugs, null) is not null
     or array_position(_check_report_arrays.task_indexes, null) is not null then
    raise exception using
      errcode = 'null_value_not_allowed',
      message = format('%s: run_ids, step_slugs and task_indexes may not contain NULL',
                       _check_report_arrays.function_name);
  end if;
  return v_n;
end;
$$;

comment on function pgflow._check_report_arrays(text, uuid[], text[], int[], anyarray, text, int[]) is
'Checks the arrays of a batch report call of function function_name and returns their
length (0 for empty or NULL arrays): run_ids, step_slugs, task_indexes and the payloads
(named payload_name: outputs or error_messages) must be one-dimensional arrays from index
1 of one length, and attempts too unless it is NULL. Raises invalid_parameter_value
"<function>: ... must be one-dimensional arrays starting at index 1", or "<function>:
run_ids, step_slugs, task_indexes, <payload_name> and attempts must have the same length
(got ...)" or null_value_not_allowed "<function>: run_ids, step_slugs and task_indexes may
not contain NULL". Writes nothing. pgflow-py internal.';
