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
  v_run pgflow.runs;
  v_root_map text;
  v_steps_count int;
  v_root_tasks int;
  v_has_waits boolean;
  v_settle boolean;
  v_status text;
  v_deadline timestamptz;
begin
  -- VALIDATE: unknown flow, keys, deadline, missing or oversized input, root maps without an
  -- array.
  select f.* into v_flow from pgflow.flows as f where f.flow_slug = start_flow.flow_slug;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', start_flow.flow_slug);
  end if;
  if start_flow.idempotency_key is not null or start_flow.concurrency_key is not null then
    perform pgflow._check_run_key('start_flow', 'idempotency_key', start_flow.idempotency_key);
    perform pgflow._check_run_key('start_flow', 'concurrency_key', start_flow.concurrency_key);
  end if;
  if start_flow.deadline <= now() then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('start_flow: deadline %s is not in the future (now is %s)', start_flow.deadline, now()),
      hint = 'Pass a later time, or NULL for the flow''s run_timeout (if any).';
  end if;
  if not isfinite(start_flow.deadline) or start_flow.deadline >= '9999-01-01 00:00:00+00' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('start_flow: deadline %s is too far away (it must be before 9999-01-01)', start_flow.deadline),
      hint = 'Pass NULL for no deadline.';
  end if;
  -- One pass over the flow's steps: count, first root map, whether some step waits.
  select count(*)::int,
         (array_agg(s.step_slug order by s.step_index)
           filter (where s.step_type = 'map' and s.deps_count = 0))[1],
         exists (select 1 from pgflow.step_waits as w where w.flow_slug = start_flow.flow_slug)
  into v_steps_count, v_root_map, v_has_waits
  from pgflow.steps as s
  where s.flow_slug = start_flow.flow_slug;
  perform pgflow._check_start_input(start_flow.flow_slug, start_flow.input, v_root_map);

  -- LOCK a limited concurrency key first: a concurrent start with the same keys has then
  -- committed (its run is found below as a duplicate) or rolled back.
  if start_flow.concurrency_key is not null and v_flow.opt_concurrency_limit is not null
     and start_flow.idempotency_key is not null then
    perform pgflow._lock_concurrency_key(start_flow.flow_slug, start_flow.concurrency_key);
  end if;
  -- DUPLICATE: a run this flow started with the same idempotency key is returned as it is.
  if start_flow.idempotency_key is not null then
    return query select r.*, true from pgflow.runs as r
      where r.flow_slug = start_flow.flow_slug and r.idempotency_key = start_flow.idempotency_key;
    if found then
      return;
    end if;
  end if;
  -- SLOT: a run with a concurrency key of a limited flow starts, queues or is refused.
  v_status := 'started';
  if start_flow.concurrency_key is not null then
    v_status := pgflow._take_concurrency_slot('start_flow', v_flow, start_flow.concurrency_key, true);
  end if;
  v_deadline := coalesce(start_flow.deadline, now() + make_interval(secs => v_flow.opt_run_timeout));

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
    or pgflow._realtime_enabled();
  -- A queued run starts nothing: every step is created and waits for its slot.
  v_settle := v_settle or v_status = 'queued';

  -- The run and its step states in one statement. A run_id or an idempotency key that
  -- exists, or that a concurrent start is inserting (this insert waits for it to commit or
  -- roll back), inserts nothing, and then no step state either.
  with new_run as (
    insert into pgflow.runs (run_id, flow_slug, status, input, remaining_steps, idempotency_key,
                             concurrency_key, deadline, queued_at, queue_seq)
    values (coalesce(start_flow.run_id, gen_random_uuid()), start_flow.flow_slug, v_status,
            start_flow.input, v_steps_count, start_flow.idempotency_key, start_flow.concurrency_key,
            v_deadline, case when v_status = 'queued' then now() end,
            case when v_status = 'queued' then nextval('pgflow.runs_queue_seq') end)
    on conflict do nothing
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
  if v_run.run_id is null and start_flow.idempotency_key is not null then
    -- A concurrent start with the same key committed first: its run is the answer.
    return query select r.*, true from pgflow.runs as r
      where r.flow_slug = start_flow.flow_slug and r.idempotency_key = start_flow.idempotency_key;
    if found then
      return;
    end if;
  end if;
  if v_run.run_id is null then
    raise exception using
      errcode = 'unique_violation',
      message = format('Run %s already exists', start_flow.run_id);
  end if;

  -- AUDIT and broadcast: the run started or queued, with its root steps when they started.
  perform pgflow._record_run_start(v_run, not v_settle);

  if v_status = 'queued' then
    null;  -- _start_queued_runs starts it when a slot frees
  elsif v_settle then
    -- CASCADE: conditions, empty maps, ready (root) steps start, completion.
    perform pgflow._advance_runs(array[v_run.run_id]);
  else
    -- QUEUE the tasks of the root steps created started.
    perform pgflow._queue_root_tasks(v_run.flow_slug, v_run.run_id, v_root_tasks);
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
nothing written (not even when its input or other arguments differ); the key lives as long
as its run (prune_data_older_than). concurrency_key (text): when the flow has a
concurrency_limit, at most that many of its runs with this key are started or paused at
once; over it, on_limit queue creates the run with status queued (no step started, no
task; it starts in start order when a slot frees, _start_queued_runs) and on_limit reject
raises configuration_limit_exceeded naming the runs holding the slots; without a limit the
key is only recorded. deadline (timestamptz, in the future; default now + the flow''s
run_timeout seconds, counted from this call, queued time included; else none): when it
passes, the tick expires the run (status expired, whatever it was doing). Raises, writing nothing: foreign_key_violation for an unknown flow;
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
