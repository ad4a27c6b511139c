-- start_ready_steps: start every ready step of a run and queue its tasks.

create function pgflow.start_ready_steps(run_id uuid)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_realtime boolean := pgflow._realtime_enabled();
  v_step record;
begin
  -- GUARD: nothing starts in a finished run.
  perform 1 from pgflow.runs as r where r.run_id = start_ready_steps.run_id and r.status = 'started';
  if not found then
    return;
  end if;

  -- MUTATE: ready steps (created, no pending deps, known non-zero task count) become
  -- started, in step_index order; taskless steps are left to the taskless cascade.
  for v_step in
    with ready as (
      select ss.step_slug
      from pgflow.step_states as ss
      where ss.run_id = start_ready_steps.run_id
        and ss.status = 'created'
        and ss.remaining_deps = 0
        and ss.initial_tasks > 0
      for update of ss
    ),
    started as (
      update pgflow.step_states as ss
      set status = 'started',
          started_at = now(),
          remaining_tasks = ss.initial_tasks
      from ready
      where ss.run_id = start_ready_steps.run_id and ss.step_slug = ready.step_slug
      returning ss.flow_slug, ss.step_slug, ss.initial_tasks, ss.remaining_deps, ss.started_at
    )
    select st.*, s.step_index, coalesce(s.opt_start_delay, 0) as start_delay
    from started as st
    join pgflow.steps as s on s.flow_slug = st.flow_slug and s.step_slug = st.step_slug
    order by s.step_index
  loop
    if v_realtime then
      perform pgflow._broadcast(start_ready_steps.run_id, 'step:' || v_step.step_slug || ':started',
        jsonb_build_object(
          'event_type', 'step:started',
          'run_id', start_ready_steps.run_id,
          'step_slug', v_step.step_slug,
          'status', 'started',
          'started_at', v_step.started_at,
          'remaining_tasks', v_step.initial_tasks,
          'remaining_deps', v_step.remaining_deps
        ));
    end if;

    -- One send_batch per step; message ids pair with task indices by position.
    insert into pgflow.step_tasks (flow_slug, run_id, step_slug, task_index, message_id)
    select v_step.flow_slug, start_ready_steps.run_id, v_step.step_slug, m.ord - 1, m.msg_id
    from pgflow._send_messages(
      v_step.flow_slug,
      array(
        select jsonb_build_object(
          'flow_slug', v_step.flow_slug,
          'run_id', start_ready_steps.run_id,
          'step_slug', v_step.step_slug,
          'task_index', i
        )
        from generate_series(0, v_step.initial_tasks - 1) as i
        order by i
      ),
      v_step.start_delay
    ) with ordinality as m (msg_id, ord);
  end loop;
end;
$$;

comment on function pgflow.start_ready_steps(uuid) is
'Starts every step of run run_id that is created, has no unfinished dependency and a known
task count > 0: status started, remaining_tasks = initial_tasks, one pgmq message per task
sent in one send_batch per step (delayed by the step''s start_delay seconds) and one
step_tasks row per task (status queued). Steps start in step_index order; broadcasts
step:started for each. No-op for a completed or failed run. Does not evaluate conditions
(callers run _cascade first). As upstream pgflow 0.14.1 start_ready_steps.';
