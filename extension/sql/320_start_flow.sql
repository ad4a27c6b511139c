-- start_flow: create a run with its step states and start whatever is ready.

create function pgflow.start_flow(
  flow_slug text,
  input jsonb,
  run_id uuid default null
)
returns setof pgflow.runs
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
  v_root_map text;
  v_steps_count int;
  v_root_tasks int;
  v_has_waits boolean;
  v_realtime boolean := pgflow._realtime_enabled();
  v_settle boolean;
  v_group record;
begin
  -- VALIDATE: unknown flow, missing or oversized input, root maps without an array.
  perform 1 from pgflow.flows as f where f.flow_slug = start_flow.flow_slug;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', start_flow.flow_slug);
  end if;
  -- One pass over the flow's steps: count, first root map, whether some step waits.
  select count(*)::int,
         (array_agg(s.step_slug order by s.step_index)
           filter (where s.step_type = 'map' and s.deps_count = 0))[1],
         exists (select 1 from pgflow.step_waits as w where w.flow_slug = start_flow.flow_slug)
  into v_steps_count, v_root_map, v_has_waits
  from pgflow.steps as s
  where s.flow_slug = start_flow.flow_slug;
  if start_flow.input is null then
    raise exception using
      errcode = 'not_null_violation',
      message = case
        when v_root_map is not null then format('Flow %L has root map steps but input is NULL', start_flow.flow_slug)
        else format('Flow %L cannot start: input is NULL', start_flow.flow_slug)
      end,
      hint = 'Pass a JSON value, for example ''{}''::jsonb (a JSON array for flows with a root map step).';
  end if;
  if pg_catalog.pg_column_size(start_flow.input) > pgflow._max_payload_bytes() then
    perform pgflow._check_payload_size(start_flow.input, format('Input of flow %L', start_flow.flow_slug));
  end if;
  if v_root_map is not null and jsonb_typeof(start_flow.input) <> 'array' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Flow %L has root map steps but input is not an array (got %s)',
                       start_flow.flow_slug, jsonb_typeof(start_flow.input)),
      hint = format('Root map step %L maps over the run input, which must be a JSON array.', v_root_map);
  end if;
  -- MUTATE: the run and one step state per step. (The array length is computed apart:
  -- inside the CASE below the planner could fold it for a non-array input and raise.)
  if jsonb_typeof(start_flow.input) = 'array' then
    v_root_tasks := jsonb_array_length(start_flow.input);
  end if;
  -- Usually the cascade after a start only starts the root steps: they are then created
  -- started, and their tasks queued below. The full cascade (_advance_runs) runs when it
  -- can do more: conditions to evaluate, waits, an empty root map, broadcasts to send, no
  -- step.
  v_settle := pgflow._flow_has_conditions(start_flow.flow_slug)
    or v_has_waits
    or v_steps_count = 0
    or (v_root_map is not null and coalesce(v_root_tasks, 0) = 0)
    or v_realtime;

  -- The run and its step states in one statement. A run_id that exists, or that a
  -- concurrent start is inserting (this insert waits for it to commit or roll back),
  -- inserts nothing, and then no step state either.
  with new_run as (
    insert into pgflow.runs (run_id, flow_slug, input, remaining_steps)
    values (coalesce(start_flow.run_id, gen_random_uuid()), start_flow.flow_slug, start_flow.input,
            v_steps_count)
    on conflict on constraint runs_pkey do nothing
    returning *
  ),
  new_states as (
    insert into pgflow.step_states (
      flow_slug, run_id, step_slug, remaining_deps, initial_tasks, status, started_at, remaining_tasks
    )
    select
      st.flow_slug, nr.run_id, st.step_slug, st.deps_count, st.initial_tasks,
      case when st.starts then 'started' else 'created' end,
      case when st.starts then now() end,
      case when st.starts then st.initial_tasks end
    from new_run as nr
    cross join (
      select
        s.flow_slug,
        s.step_slug,
        s.deps_count,
        case
          when s.step_type = 'map' and s.deps_count = 0 then v_root_tasks
          when s.step_type = 'map' then null
          else 1
        end as initial_tasks,
        not v_settle and s.deps_count = 0 as starts
      from pgflow.steps as s
      where s.flow_slug = start_flow.flow_slug
    ) as st
  )
  select nr.* into v_run from new_run as nr;
  if v_run.run_id is null then
    raise exception using
      errcode = 'unique_violation',
      message = format('Run %s already exists', start_flow.run_id);
  end if;

  -- AUDIT: the run started (from rerun_flow: which run it reruns), and so did its root steps
  -- when they were created started.
  perform pgflow._record_events(e.events, array_fill(v_run.run_id, array[cardinality(e.events)]),
    e.step_slugs, details => e.details, default_actor => 'app')
  from (
    select array['run:started'] || coalesce(array_agg('step:started'::text order by s.step_index), '{}') as events,
           array[null::text] || coalesce(array_agg(s.step_slug order by s.step_index), '{}') as step_slugs,
           array[case when coalesce(pg_catalog.current_setting('pgflow.rerun_of', true), '') <> ''
                      then jsonb_build_object('rerun_of', pg_catalog.current_setting('pgflow.rerun_of', true))
                 end] as details
    from pgflow.steps as s
    where s.flow_slug = start_flow.flow_slug and s.deps_count = 0 and not v_settle
  ) as e;

  if v_realtime then
    perform pgflow._broadcast(v_run.run_id, 'run:started', jsonb_build_object(
      'event_type', 'run:started',
      'run_id', v_run.run_id,
      'flow_slug', v_run.flow_slug,
      'input', v_run.input,
      'status', 'started',
      'remaining_steps', v_run.remaining_steps,
      'started_at', v_run.started_at
    ));
  end if;

  if v_settle then
    -- CASCADE: conditions, empty maps, ready (root) steps start, completion.
    perform pgflow._advance_runs(array[v_run.run_id]);
  else
    -- QUEUE the tasks of the root steps created started, one send per start delay.
    for v_group in
      select coalesce(s.opt_start_delay, 0) as start_delay,
             array_agg(s.step_slug order by s.step_index) as step_slugs,
             array_agg(case when s.step_type = 'map' then v_root_tasks else 1 end
                       order by s.step_index) as task_counts
      from pgflow.steps as s
      where s.flow_slug = start_flow.flow_slug and s.deps_count = 0
      group by coalesce(s.opt_start_delay, 0)
      order by min(s.step_index)
    loop
      perform pgflow._queue_step_tasks(start_flow.flow_slug, v_group.start_delay,
        array_fill(v_run.run_id, array[cardinality(v_group.step_slugs)]), v_group.step_slugs,
        v_group.task_counts);
    end loop;
  end if;

  -- RETURN the run as it is now (it may already be completed or failed).
  return query select r.* from pgflow.runs as r where r.run_id = v_run.run_id;
end;
$$;

comment on function pgflow.start_flow(text, jsonb, uuid) is
'Starts a run of flow flow_slug with input (jsonb; a JSON array when the flow has a root map
step) and returns the runs row as it is after the initial cascade: root steps are queued,
conditions evaluated, empty maps completed, so the run may already be completed or failed.
run_id: optional caller-chosen uuid (random when NULL). Raises, writing nothing:
foreign_key_violation for an unknown flow; not_null_violation for a NULL input;
program_limit_exceeded when input is larger than pgflow.max_payload_bytes (default 16 MiB,
measured with pg_column_size; upstream has no limit); invalid_parameter_value when a root
map gets a non-array input (or the size setting is invalid); unique_violation "Run <id>
already exists" when run_id exists, also when concurrent calls pass the same run_id (one
creates the run, every other waits for it to commit and then raises this error; upstream
raises the violation of runs_pkey). Broadcasts run:started when realtime.send exists.
As upstream pgflow 0.14.1 start_flow, stricter where noted.';
