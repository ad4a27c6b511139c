-- fail_tasks: a worker reports many handler failures in one call; one outcome per report.

create function pgflow.fail_tasks(
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  error_messages text[],
  attempts int[] default null,
  permanent boolean[] default null,
  tracebacks text[] default null
)
returns table (run_id uuid, step_slug text, task_index int, status text, outcome text, reason text)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_n int := coalesce(cardinality(fail_tasks.run_ids), 0);
  v_item record;
  v_ords int[] := '{}'::int[];
  v_outcomes text[] := '{}'::text[];
  v_reasons text[] := '{}'::text[];
  v_outcome text;
  v_reason text;
  v_previous text[];
begin
  -- VALIDATE: arrays of one length (attempts may be NULL), no NULL key.
  perform pgflow._check_report_arrays('fail_tasks', fail_tasks.run_ids, fail_tasks.step_slugs,
    fail_tasks.task_indexes, fail_tasks.error_messages, 'error_messages', fail_tasks.attempts);
  if fail_tasks.permanent is not null
     and (coalesce(array_ndims(fail_tasks.permanent), 1) <> 1
          or coalesce(array_lower(fail_tasks.permanent, 1), 1) <> 1
          or cardinality(fail_tasks.permanent) <> v_n) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('fail_tasks: permanent must be NULL or a one-dimensional array of %s '
                       'elements starting at index 1 (got %s)', v_n, cardinality(fail_tasks.permanent));
  end if;
  if fail_tasks.tracebacks is not null
     and (coalesce(array_ndims(fail_tasks.tracebacks), 1) <> 1
          or coalesce(array_lower(fail_tasks.tracebacks, 1), 1) <> 1
          or cardinality(fail_tasks.tracebacks) <> v_n) then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('fail_tasks: tracebacks must be NULL or a one-dimensional array of %s '
                       'elements starting at index 1 (got %s)', v_n, cardinality(fail_tasks.tracebacks));
  end if;
  if v_n = 0 then
    return;
  end if;

  -- LOCK: the runs, in key order (their step_states and started tasks then change under
  -- nobody else: _lock_task_reports says why).
  perform pgflow._lock_task_reports(fail_tasks.run_ids);
  -- The events of this call name the reporting worker (all reports of a call come from one).
  v_previous := pgflow._set_worker_actor(fail_tasks.run_ids, fail_tasks.step_slugs,
                                         fail_tasks.task_indexes);

  -- MUTATE: report by report, in array order (each decides its own retry and backoff),
  -- each storing a bounded error text (and its bounded traceback in its task:failed event).
  for v_item in
    select u.pos, u.run_id, u.step_slug, u.task_index,
           pgflow._bounded_error_text(u.error_message) as error_message, u.attempt,
           coalesce(fail_tasks.permanent[u.pos], false) as permanent,
           pgflow._bounded_error_text(u.traceback) as traceback
    from unnest(fail_tasks.run_ids, fail_tasks.step_slugs, fail_tasks.task_indexes,
                fail_tasks.error_messages, fail_tasks.attempts, fail_tasks.tracebacks)
      with ordinality as u (run_id, step_slug, task_index, error_message, attempt, traceback, pos)
    order by u.pos
  loop
    select f.outcome, f.reason into v_outcome, v_reason
    from pgflow._fail_task(v_item.run_id, v_item.step_slug, v_item.task_index, v_item.error_message,
                           v_item.attempt, v_item.permanent, v_item.traceback) as f;
    v_ords := v_ords || v_item.pos::int;
    v_outcomes := v_outcomes || v_outcome;
    v_reasons := v_reasons || v_reason;
  end loop;
  if v_previous is not null then
    perform pgflow._set_actor(v_previous[1], v_previous[2]);
  end if;

  -- RETURN: one row per report, in array order, with the task's status after the call.
  return query
  select fail_tasks.run_ids[o.ord], fail_tasks.step_slugs[o.ord], fail_tasks.task_indexes[o.ord],
         t.status, o.outcome, o.reason
  from unnest(v_ords, v_outcomes, v_reasons) as o (ord, outcome, reason)
  left join pgflow.step_tasks as t
    on t.run_id = fail_tasks.run_ids[o.ord] and t.step_slug = fail_tasks.step_slugs[o.ord]
      and t.task_index = fail_tasks.task_indexes[o.ord]
  order by o.ord;
end;
$$;

comment on function pgflow.fail_tasks(uuid[], text[], int[], text[], int[], boolean[], text[]) is
'Batch form of fail_task: report i says that the handler of task (run_ids[i],
step_slugs[i], task_indexes[i]) failed with error_messages[i], on attempt attempts[i] (the
attempts_count of the claim; attempts NULL or an element NULL: no fence); permanent[i] true
(a failure no retry can cure: the handler raised PermanentError or returned a value that
is not JSON) fails the task at once without spending its remaining attempts (permanent NULL
or an element NULL: false); tracebacks[i] (the handler''s formatted traceback; tracebacks
NULL or an element NULL: none) is kept, bounded as error messages are, in the details of
the task:failed event the report records (key traceback), and nowhere else: the task and
step keep the short error_messages[i], and a report that is ignored stores nothing.
Locks the runs named, in key order (_lock_task_reports), then
applies the reports one by one in array order (_fail_task), as fail_task would. An error message over 16384 characters
is stored as its head and tail (_bounded_error_text). Returns one row per report, in array
order: run_id, step_slug, task_index, status (after the call; NULL for an unknown task),
outcome and reason: retried (queued again with backoff), failed (exhausted: when_exhausted
decided; run_failed: the run had failed, the started task is closed), ignored, writing
nothing but possibly the archive, with unknown_task, stale_attempt (a newer attempt holds
the task), unknown_attempt (an attempt the task never had), run_failed, run_cancelled or
task_cancelled (the task was cancelled: its run failed or was cancelled), step_not_started
(the message is archived) or task_not_started. Raises invalid_parameter_value for arrays
of different lengths (permanent and tracebacks included, unless NULL) or arrays that are not
one-dimensional from index 1, and
null_value_not_allowed for a NULL key, writing nothing. Empty arrays return nothing.
pgflow-py extension (tracebacks too: upstream stores no traceback).';
