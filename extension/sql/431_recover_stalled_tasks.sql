-- recover_stalled_tasks: the name requeue_stalled_tasks had in pgflow-py 0.1.0; kept as an
-- alias.

create function pgflow.recover_stalled_tasks()
returns int
language sql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
  select pgflow.requeue_stalled_tasks();
$$;

comment on function pgflow.recover_stalled_tasks() is
'Deprecated alias of pgflow.requeue_stalled_tasks() (which see), the name it had in
pgflow-py 0.1.0: same job, same result (the number of tasks requeued).';
