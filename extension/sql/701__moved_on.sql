-- _moved_on: the answer of a run-control verb whose run is no longer in the status the
-- caller expected.

create function pgflow._moved_on(run pgflow.runs, expected_status text)
returns pgflow.run_control_result
language sql
immutable
set search_path = pg_catalog, pg_temp
as $$
  select (_moved_on.run).run_id, (_moved_on.run).status, false,
    format('run is %s, not %s: nothing done', (_moved_on.run).status, _moved_on.expected_status);
$$;

comment on function pgflow._moved_on(pgflow.runs, text) is
'The result of a run-control verb that did nothing because run (the row
_lock_run_for_control returned) is no longer in expected_status: (run_id, status, changed
false, detail "run is <status>, not <expected_status>: nothing done"). pgflow-py internal.';
