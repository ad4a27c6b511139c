-- get_run_events: the audit trail of one run, oldest first.

create function pgflow.get_run_events(run_id uuid)
returns setof pgflow.run_events
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select e.*
  from pgflow.run_events as e
  where e.run_id = get_run_events.run_id
  order by e.id;
$$;

comment on function pgflow.get_run_events(uuid) is
'The pgflow.run_events rows of run run_id in the order they were written (id), oldest
first: every status change of the run and its steps, every failed or requeued task
attempt, every run-control verb with its actor and reason. Empty for an unknown or pruned
run. Reads only. pgflow-py extension.';
