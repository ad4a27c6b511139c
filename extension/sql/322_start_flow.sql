-- start_flow: create a run with its step states and start whatever is ready.

create function pgflow.start_flow(
  flow_slug text,
  input jsonb,
  run_id uuid default null,
  idempotency_key text default null,
  concurrency_key text default null,
  deadline timestamptz default null
)
returns setof pgflow.start_flow_result
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_flow pgflow.flows;
  v_run_timeout int;
  v_run pgflow.runs;
  v_root_map text;
  v_steps_count int;
  v_root_tasks int;
  v_has_waits boolean;
  v_has_conditions boolean;
  v_settle boolean;
  v_status text;
  v_deadline timestamptz;
  v_duplicate uuid;
  v_roots text[];
  v_root_delays int[];
  v_root_counts int[];
  v_realtime boolean := pgflow._realtime_enabled();
  v_now timestamptz := pgflow._now();
begin
  -- VALIDATE: unknown flow, keys, deadline, missing or oversized input, root maps without an
  -- array. One read of the flow and its steps: its run timeout, the step count, the first
  -- root map, whether some step waits or has a condition (as _flow_has_conditions says,
  -- without a second lookup), and the root steps in step_index order: slugs, start delays,
  -- task counts (NULL for a map: the input's length, set below).
  select f.opt_run_timeout, count(s.step_slug)::int,
         (array_agg(s.step_slug order by s.step_index)
           filter (where s.step_type = 'map' and s.deps_count = 0))[1],
         exists (select 1 from pgflow.step_waits as w where w.flow_slug = f.flow_slug),
         coalesce(bool_or(s.required_input_pattern is not null
                          or s.forbidden_input_pattern is not null), false),
         array_agg(s.step_slug order by s.step_index) filter (where s.deps_count = 0),
         array_agg(coalesce(s.opt_start_delay, 0) order by s.step_index)
           filter (where s.deps_count = 0),
         array_agg(case when s.step_type <> 'map' then 1 end order by s.step_index)
           filter (where s.deps_count = 0)
  into v_run_timeout, v_steps_count, v_root_map, v_has_waits, v_has_conditions, v_roots,
       v_root_delays, v_root_counts
  from pgflow.flows as f
  left join pgflow.steps as s on s.flow_slug = f.flow_slug
  where f.flow_slug = start_flow.flow_slug
  group by f.flow_slug;
  if not found then
    raise exception using errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', start_flow.flow_slug);
  end if;
  if start_flow.idempotency_key is not null or start_flow.concurrency_key is not null then
    perform pgflow._check_start_options(start_flow.idempotency_key, start_flow.concurrency_key, null);
    -- (the flow's whole row, for the keyed helpers only)
    select f.* into v_flow from pgflow.flows as f where f.flow_slug = start_flow.flow_slug;
  end if;
  if start_flow.input is null or (v_root_map is not null and jsonb_typeof(start_flow.input) <> 'array')
     or pg_catalog.pg_column_size(start_flow.input) > pgflow._max_payload_bytes() then
    perform pgflow._check_start_input(start_flow.flow_slug, start_flow.input, v_root_map);
  end if;

  -- DUPLICATE: a run this flow started with the same idempotency key is returned as it is.
  if start_flow.idempotency_key is not null then
    v_duplicate := pgflow._find_keyed_start(v_flow, start_flow.idempotency_key, start_flow.concurrency_key);
    if v_duplicate is not null then
      return query select r.*, true from pgflow.runs as r where r.run_id = v_duplicate;
      return;
    end if;
  end if;
  -- (the deadline after the duplicate: a retried start whose deadline has passed since gets
  -- its run back)
  if start_flow.deadline is not null then
    perform pgflow._check_start_options(null, null, start_flow.deadline);
  end if;
  -- SLOT: a run with a concurrency key of a limited flow starts, queues or is refused.
  v_status := 'started';
  if start_flow.concurrency_key is not null then
    v_status := pgflow._take_concurrency_slot('start_flow', v_flow, start_flow.concurrency_key, true);
  end if;
  v_deadline := start_flow.deadline;
  if v_deadline is null and v_run_timeout is not null then
    v_deadline := v_now + make_interval(secs => v_run_timeout);
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
  v_settle := v_has_conditions
    or v_has_waits
    or v_steps_count = 0
    or (v_root_map is not null and coalesce(v_root_tasks, 0) = 0)
    or v_realtime;
  -- A queued run starts nothing: every step is created and waits for its slot.
  v_settle := v_settle or v_status = 'queued';

  -- The run and its step states in one statement. A run_id or an idempotency key that
  -- exists, or that a concurrent start is inserting (this insert waits for it to commit or
  -- roll back), inserts nothing, and then no step state either.
  with new_run as (
    insert into pgflow.runs (run_id, flow_slug, status, input, remaining_steps, idempotency_key,
                             concurrency_key, deadline, started_at, queued_at, queue_seq)
    values (coalesce(start_flow.run_id, gen_random_uuid()), start_flow.flow_slug, v_status,
            start_flow.input, v_steps_count, start_flow.idempotency_key, start_flow.concurrency_key,
            v_deadline, v_now, case when v_status = 'queued' then v_now end,
            case when v_status = 'queued' then nextval('pgflow.runs_queue_seq') end)
    on conflict do nothing
    returning *
  ),
  new_states as (
    insert into pgflow.step_states (
      flow_slug, run_id, step_slug, remaining_deps, initial_tasks, status, created_at, started_at,
      remaining_tasks
    )
    select
      st.flow_slug, nr.run_id, st.step_slug, st.deps_count, st.initial_tasks,
      case when st.starts then 'started' else 'created' end,
      v_now,
      case when st.starts then v_now end,
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
  if v_run.run_id is null and start_flow.idempotency_key is not null then
    -- A concurrent start with the same key committed first: its run is the answer.
    v_duplicate := pgflow._find_keyed_start(v_flow, start_flow.idempotency_key, start_flow.concurrency_key);
    if v_duplicate is not null then
      return query select r.*, true from pgflow.runs as r where r.run_id = v_duplicate;
      return;
    end if;
  end if;
  if v_run.run_id is null then
    raise exception using errcode = 'unique_violation',
      message = format('Run %s already exists', start_flow.run_id);
  end if;

  -- AUDIT: the run started or queued (details: from rerun_flow which run it reruns, its
  -- concurrency key and deadline), and so did its root steps when they were created started.
  v_root_counts := array_replace(v_root_counts, null, v_root_tasks);
  perform pgflow._record_events(
    array['run:' || v_status]
      || case when v_settle then '{}'::text[]
              else array_fill('step:started'::text, array[cardinality(v_roots)]) end,
    array_fill(v_run.run_id, array[1 + case when v_settle then 0 else cardinality(v_roots) end]),
    array[null::text] || case when v_settle then '{}'::text[] else v_roots end,
    details => array[nullif(jsonb_strip_nulls(jsonb_build_object(
      'rerun_of', nullif(pg_catalog.current_setting('pgflow.rerun_of', true), ''),
      'concurrency_key', v_run.concurrency_key, 'deadline', v_run.deadline)), '{}'::jsonb)],
    default_actor => 'app');
  -- (a queued run is broadcast when it starts, _record_queued_run_start)
  if v_realtime and v_status = 'started' then
    perform pgflow._broadcast(v_run.run_id, 'run:started', jsonb_build_object(
      'event_type', 'run:started', 'run_id', v_run.run_id, 'flow_slug', v_run.flow_slug,
      'input', v_run.input, 'status', 'started', 'remaining_steps', v_run.remaining_steps,
      'started_at', v_run.started_at));
  end if;

  if v_settle then
    -- CASCADE: conditions, empty maps, ready (root) steps start, completion. (A queued run
    -- starts nothing: _start_queued_runs starts it when a slot frees.)
    if v_status = 'started' then perform pgflow._advance_runs(array[v_run.run_id]); end if;
  elsif v_root_delays[1] = all(v_root_delays) then
    -- QUEUE the tasks of the root steps created started: one send when they share a start
    -- delay (the usual case), else one per start delay, in step_index order.
    perform pgflow._queue_step_tasks(start_flow.flow_slug, v_root_delays[1],
      array_fill(v_run.run_id, array[cardinality(v_roots)]), v_roots, v_root_counts,
      maps => v_root_map is not null);
  else
    perform pgflow._queue_step_tasks(start_flow.flow_slug, g.delay,
      array_fill(v_run.run_id, array[cardinality(g.step_slugs)]), g.step_slugs, g.task_counts)
    from (
      select u.delay, array_agg(u.slug order by u.i) as step_slugs,
             array_agg(u.n order by u.i) as task_counts, min(u.i) as first
      from unnest(v_roots, v_root_delays, v_root_counts) with ordinality as u (slug, delay, n, i)
      group by u.delay
    ) as g
    order by g.first;
  end if;

  -- RETURN the run as it is now (it may already be completed or failed).
  return query select r.*, false from pgflow.runs as r where r.run_id = v_run.run_id;
end;
$$;

comment on function pgflow.start_flow(text, jsonb, uuid, text, text, timestamptz) is
'Starts a run of flow flow_slug with input (jsonb; a JSON array when the flow has a root map
step) and returns it as a start_flow_result row (the runs columns, then duplicate) as it is
after the initial cascade: root steps are queued, conditions evaluated, empty maps
completed, so the run may already be completed or failed. run_id: optional caller-chosen
uuid (random when NULL). pgflow-py trailing arguments, all optional:
idempotency_key (text): the first start of the flow with this key creates the run; every
later or concurrent one returns that run, whatever its status, with duplicate true and
nothing written (not even when its input or other arguments differ, its deadline
included, though the keys must be valid and the input well-formed); the key lives as long
as its run (prune_data_older_than). concurrency_key (text): when the flow has a
concurrency_limit, at most that many of its runs with this key are started or paused at
once; over it, on_limit queue creates the run with status queued (no step started, no
task; it starts in start order when a slot frees, _start_queued_runs) and on_limit reject
raises configuration_limit_exceeded naming the runs holding the slots; without a limit the
key is only recorded. deadline (timestamptz, in the future; default the engine''s time
(pgflow._now()) + the flow''s run_timeout seconds, counted from this call, queued time
included; else none): when it passes, the tick expires the run (status expired, whatever it
was doing). Raises, writing nothing: foreign_key_violation for an unknown flow;
not_null_violation for a NULL input; program_limit_exceeded when input is larger than
pgflow.max_payload_bytes (default 16 MiB, measured with pg_column_size; upstream has no
limit); invalid_parameter_value when a root map gets a non-array input, for a blank or
over-255-character key, or a deadline not after now, infinite or from 9999 on; configuration_limit_exceeded (53400)
as above; invalid_transaction_state for a limited concurrency_key outside READ COMMITTED;
unique_violation "Run <id> already exists" when run_id exists, also when concurrent calls
pass the same run_id (one creates the run, every other waits for it to commit and then
raises this error; upstream raises the violation of runs_pkey). Broadcasts run:started
when realtime.send exists (not for a queued run). As upstream pgflow 0.14.1 start_flow,
stricter where noted, with trailing arguments and columns upstream lacks.';
