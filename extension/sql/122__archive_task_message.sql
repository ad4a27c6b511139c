-- _archive_task_message: archive the pgmq message of one task.

create function pgflow._archive_task_message(p_run_id uuid, p_step_slug text, p_task_index int)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  -- PL/pgSQL so the plan is cached per session (a SQL function with SET re-plans per call).
  perform pgmq.archive(t.flow_slug, t.message_id)
  from pgflow.step_tasks as t
  where t.run_id = p_run_id
    and t.step_slug = p_step_slug
    and t.task_index = p_task_index
    and t.message_id is not null;
end;
$$;

comment on function pgflow._archive_task_message(uuid, text, int) is
'Archives (moves to pgmq.a_<flow>) the message of task (p_run_id, p_step_slug,
p_task_index) if it has one and it is still in the queue; otherwise does nothing.
As upstream pgflow 0.14.1.';
