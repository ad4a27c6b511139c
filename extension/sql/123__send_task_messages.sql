-- _send_task_messages: build and send the pgmq messages of tasks (the one place that builds a
-- task message).

create function pgflow._send_task_messages(
  flow_slug text,
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  delay_seconds int
)
returns setof bigint
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_msgs jsonb[];
begin
  -- The message of a task: what a worker needs to find it (upstream's shape).
  v_msgs := array(
    select jsonb_build_object(
      'flow_slug', _send_task_messages.flow_slug,
      'run_id', t.run_id,
      'step_slug', t.step_slug,
      'task_index', t.task_index
    )
    from unnest(_send_task_messages.run_ids, _send_task_messages.step_slugs,
                _send_task_messages.task_indexes) with ordinality as t (run_id, step_slug, task_index, ord)
    order by t.ord
  );
  -- pgmq's send_batch(queue, msgs, delay int) is a SQL-language wrapper, parsed and
  -- planned again at every call; the PL/pgSQL overload it calls (headers, visible-at
  -- timestamp) keeps its plans, so it is called directly where this pgmq has it.
  if pg_catalog.to_regprocedure('pgmq.send_batch(text,jsonb[],jsonb[],timestamp with time zone)') is not null then
    return query
    select m.msg_id
    from pgmq.send_batch(_send_task_messages.flow_slug, v_msgs, null::jsonb[],
                         pg_catalog.clock_timestamp()
                           + pg_catalog.make_interval(secs => _send_task_messages.delay_seconds))
      as m (msg_id);
  else
    return query
    select m.msg_id
    from pgmq.send_batch(_send_task_messages.flow_slug, v_msgs, _send_task_messages.delay_seconds)
      as m (msg_id);
  end if;
end;
$$;

comment on function pgflow._send_task_messages(text, uuid[], text[], int[], int) is
'Sends one pgmq message per task to the queue of flow flow_slug: for each i the message
{"flow_slug", "run_id": run_ids[i], "step_slug": step_slugs[i], "task_index":
task_indexes[i]}, visible after delay_seconds seconds, all in one send_batch; returns the
msg_ids in array order. This is the only place a task message is built. Calls pgmq''s
PL/pgSQL send_batch(queue, msgs, headers, timestamptz) directly when pgmq has it (the
integer-delay form is a SQL wrapper re-planned at every call). Raises what pgmq raises
(an unknown queue; an empty batch, so callers send none). Callers record the msg_ids in step_tasks. pgflow-py internal.';
