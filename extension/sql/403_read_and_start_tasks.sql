-- read_and_start_tasks: both phases of two-phase polling in one call (one round trip).

create function pgflow.read_and_start_tasks(
  flow_slug text,
  worker_id uuid,
  qty int,
  visibility_timeout int,
  step_slugs text[] default null
)
returns table (
  msg_id bigint,
  read_ct int,
  enqueued_at timestamptz,
  vt timestamptz,
  message jsonb,
  headers jsonb,
  run_id uuid,
  step_slug text,
  task_index int,
  input jsonb,
  flow_input jsonb,
  attempts_count int
)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
  v_msg_ids bigint[];
  v_read_cts int[];
  v_enqueued_ats timestamptz[];
  v_vts timestamptz[];
  v_messages jsonb[];
  v_headers jsonb[];
  v_claim bigint[];
  v_run_ids uuid[];
  v_step_slugs text[];
  v_task_indexes int[];
  v_inputs jsonb[];
  v_flow_inputs jsonb[];
  v_started_ids bigint[];
  v_handles_all boolean;
  v_min_timeout int;
  v_max_timeout int;
  v_lease int;
  v_extend boolean;
begin
  -- VALIDATE: the arguments read_tasks does not see (it checks the flow and qty).
  if read_and_start_tasks.visibility_timeout is null or read_and_start_tasks.visibility_timeout < 0 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('visibility_timeout must be a non-negative number of seconds (got %s)',
                       coalesce(read_and_start_tasks.visibility_timeout::text, 'NULL'));
  end if;
  if read_and_start_tasks.worker_id is null then
    raise exception using
      errcode = 'null_value_not_allowed',
      message = 'worker_id may not be NULL';
  end if;

  -- LEASE: a caller that handles every step of a flow whose steps share one timeout claims
  -- every task it reads, so messages are read with the claim's lease (timeout + 2 s) at
  -- once; otherwise with visibility_timeout, and claimed ones are extended afterwards.
  select bool_and(read_and_start_tasks.step_slugs is null or s.step_slug = any(read_and_start_tasks.step_slugs)),
         min(coalesce(s.opt_timeout, f.opt_timeout)), max(coalesce(s.opt_timeout, f.opt_timeout))
  into v_handles_all, v_min_timeout, v_max_timeout
  from pgflow.steps as s
  join pgflow.flows as f on f.flow_slug = s.flow_slug
  where s.flow_slug = read_and_start_tasks.flow_slug;
  v_extend := not coalesce(v_handles_all and v_min_timeout = v_max_timeout, false);
  v_lease := case when v_extend then read_and_start_tasks.visibility_timeout else v_min_timeout + 2 end;

  -- READ: reserve up to qty visible messages for the lease.
  select array_agg(m.msg_id order by m.msg_id), array_agg(m.read_ct order by m.msg_id),
         array_agg(m.enqueued_at order by m.msg_id), array_agg(m.vt order by m.msg_id),
         array_agg(m.message order by m.msg_id), array_agg(m.headers order by m.msg_id)
  into v_msg_ids, v_read_cts, v_enqueued_ats, v_vts, v_messages, v_headers
  from pgflow.read_tasks(read_and_start_tasks.flow_slug, v_lease, read_and_start_tasks.qty) as m;
  if v_msg_ids is null then
    return;
  end if;

  -- START: claim the tasks behind the messages for steps the caller handles (all when
  -- step_slugs is NULL); the others stay reserved for the lease, then reappear for other
  -- workers.
  v_claim := array(
    select m.msg_id
    from unnest(v_msg_ids, v_messages) as m (msg_id, message)
    where read_and_start_tasks.step_slugs is null
       or (m.message ->> 'step_slug') = any(read_and_start_tasks.step_slugs)
  );
  select array_agg(st.msg_id), array_agg(st.run_id), array_agg(st.step_slug),
         array_agg(st.task_index), array_agg(st.input), array_agg(st.flow_input)
  into v_started_ids, v_run_ids, v_step_slugs, v_task_indexes, v_inputs, v_flow_inputs
  from pgflow._start_tasks(read_and_start_tasks.flow_slug, v_claim, read_and_start_tasks.worker_id,
                           v_extend) as st;

  -- RETURN: every message read, with its task when it was claimed (attempts_count as
  -- incremented by start_tasks, read in this later statement).
  return query
  select m.msg_id, m.read_ct, m.enqueued_at, m.vt, m.message, m.headers,
         st.run_id, st.step_slug, st.task_index, st.input, st.flow_input, t.attempts_count
  from unnest(v_msg_ids, v_read_cts, v_enqueued_ats, v_vts, v_messages, v_headers)
    as m (msg_id, read_ct, enqueued_at, vt, message, headers)
  left join unnest(v_started_ids, v_run_ids, v_step_slugs, v_task_indexes, v_inputs, v_flow_inputs)
    as st (msg_id, run_id, step_slug, task_index, input, flow_input)
    on st.msg_id = m.msg_id
  left join pgflow.step_tasks as t
    on t.run_id = st.run_id and t.step_slug = st.step_slug and t.task_index = st.task_index
  order by m.msg_id;
end;
$$;

comment on function pgflow.read_and_start_tasks(text, uuid, int, int, text[]) is
'read_tasks then start_tasks in one call and one transaction: reserves up to qty visible
messages of the queue of flow flow_slug, claims for worker worker_id the tasks behind
those whose step is in step_slugs (every step when NULL), and returns one row per message
read, in msg_id order: msg_id, read_ct, enqueued_at, vt (as read), message, headers (the
columns of pgmq.message_record), then the claimed task''s run_id, step_slug, task_index,
input and flow_input (as start_tasks returns them) and attempts_count after the claim.
The task columns are NULL for a message not claimed: a step not in step_slugs, or a task
start_tasks ignores (duplicate or late delivery). Lease: when step_slugs covers every step
of the flow and the steps share one effective timeout, messages are read with that
timeout + 2 seconds (the lease start_tasks gives, in one update); otherwise they are read
for visibility_timeout seconds (the time an unclaimed message stays hidden) and claimed
ones are then extended to their step timeout + 2 s. qty in messages, visibility_timeout
in seconds. Raises foreign_key_violation for an unknown flow, invalid_parameter_value for
a NULL or negative visibility_timeout or qty, null_value_not_allowed for a NULL
worker_id. SECURITY DEFINER: for workers with the pgflow_worker role. pgflow-py
extension (upstream workers call pgmq.read_with_poll and start_tasks in two round trips).';
