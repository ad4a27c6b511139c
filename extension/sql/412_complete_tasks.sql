-- complete_tasks: a worker reports many task outputs in one call (group commit); one outcome
-- per report.

create function pgflow.complete_tasks(
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  outputs jsonb[],
  attempts int[] default null
)
returns table (
  run_id uuid, step_slug text, task_index int, status text, outcome text, reason text, detail text
)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_n int;
  v_waves int[];
  v_max_wave int;
  v_ords int[] := '{}'::int[];
  v_outcomes text[] := '{}'::text[];
  v_reasons text[] := '{}'::text[];
  v_details text[] := '{}'::text[];
begin
  -- VALIDATE: arrays of one length (attempts may be NULL), no NULL key.
  v_n := pgflow._check_report_arrays('complete_tasks', complete_tasks.run_ids, complete_tasks.step_slugs,
    complete_tasks.task_indexes, complete_tasks.outputs, 'outputs', complete_tasks.attempts);
  if v_n = 0 then
    return;
  end if;

  -- LOCK: the runs, in key order (their step_states and started tasks then change under
  -- nobody else: _lock_task_reports says why).
  perform pgflow._lock_task_reports(complete_tasks.run_ids);

  -- WAVES: reports go to _complete_tasks all at once (wave 1), except that a task's k-th
  -- report goes in wave k, and so does a run's k-th report where the order of its reports
  -- can matter: while realtime is on (events keep call order), in a flow with conditions
  -- (a condition may fail the run between two reports) and when a report is for a single
  -- step feeding a map (a non-array output fails the run).
  if v_n > 1 then
    select array_agg(w.wave order by w.pos), max(w.wave) into v_waves, v_max_wave
    from (
      select u.pos,
        case when q.run_id is null
             then row_number() over (partition by u.run_id, u.step_slug, u.task_index order by u.pos)::int
             else row_number() over (partition by u.run_id order by u.pos)::int
        end as wave
      from unnest(complete_tasks.run_ids, complete_tasks.step_slugs, complete_tasks.task_indexes)
        with ordinality as u (run_id, step_slug, task_index, pos)
      left join (
        -- runs with several reports (cheap to find), then those whose order can matter
        select m.run_id
        from (
          select k.run_id, r.flow_slug, array_agg(distinct k.step_slug) as step_slugs
          from unnest(complete_tasks.run_ids, complete_tasks.step_slugs) as k (run_id, step_slug)
          join pgflow.runs as r on r.run_id = k.run_id
          group by k.run_id, r.flow_slug
          having count(*) > 1
          offset 0  -- a fence: the checks below run per run found, not per report
        ) as m
        where pgflow._realtime_enabled()
          or pgflow._flow_has_conditions(m.flow_slug)
          or exists (
            select 1 from unnest(m.step_slugs) as k (step_slug)
            where pgflow._map_step_fed_by(m.flow_slug, k.step_slug) is not null
          )
      ) as q on q.run_id = u.run_id
    ) as w;
  end if;

  -- APPLY and RETURN: one row per report, in array order, with the task's status after the
  -- call (NULL for an unknown task).
  if v_n = 1 or v_max_wave = 1 then
    return query
    select complete_tasks.run_ids[c.ord], complete_tasks.step_slugs[c.ord],
           complete_tasks.task_indexes[c.ord], c.status, c.outcome, c.reason, c.detail
    from pgflow._complete_tasks(null, complete_tasks.run_ids, complete_tasks.step_slugs,
      complete_tasks.task_indexes, complete_tasks.outputs, complete_tasks.attempts) as c;
    return;
  end if;

  for v_wave in 1 .. v_max_wave loop
    select v_ords || array_agg(c.ord), v_outcomes || array_agg(c.outcome),
           v_reasons || array_agg(c.reason), v_details || array_agg(c.detail)
    into v_ords, v_outcomes, v_reasons, v_details
    from (
      select array_agg(i order by i) as ords,
             array_agg(complete_tasks.run_ids[i] order by i) as run_ids,
             array_agg(complete_tasks.step_slugs[i] order by i) as step_slugs,
             array_agg(complete_tasks.task_indexes[i] order by i) as task_indexes,
             array_agg(complete_tasks.outputs[i] order by i) as outputs,
             array_agg(complete_tasks.attempts[i] order by i) as attempts
      from generate_subscripts(v_waves, 1) as i
      where v_waves[i] = v_wave
    ) as w
    cross join lateral pgflow._complete_tasks(w.ords, w.run_ids, w.step_slugs, w.task_indexes,
                                              w.outputs, w.attempts) as c;
  end loop;

  return query
  select complete_tasks.run_ids[o.ord], complete_tasks.step_slugs[o.ord],
         complete_tasks.task_indexes[o.ord], t.status, o.outcome, o.reason, o.detail
  from unnest(v_ords, v_outcomes, v_reasons, v_details) as o (ord, outcome, reason, detail)
  left join pgflow.step_tasks as t
    on t.run_id = complete_tasks.run_ids[o.ord] and t.step_slug = complete_tasks.step_slugs[o.ord]
      and t.task_index = complete_tasks.task_indexes[o.ord]
  order by o.ord;
end;
$$;

comment on function pgflow.complete_tasks(uuid[], text[], int[], jsonb[], int[]) is
'Batch form of complete_task for group commit: report i is task (run_ids[i], step_slugs[i],
task_indexes[i]) with output outputs[i] (jsonb, stored as given), claimed as attempt
attempts[i] (the attempts_count start_tasks / read_and_start_tasks returned; attempts NULL
or an element NULL: no fence). The outcome is that of calling complete_task for each
report in array order within one transaction, with a fixed number of statements per call:
reports that may be applied together are (_complete_tasks); a run whose reports'' order
matters (realtime on, a flow with conditions, a single step feeding a map) gets its
reports applied one at a time, and so do the reports of a task named more than once.
Locks the runs named, in key order (_lock_task_reports), and nothing else up front.
Returns one row per report, in array order: run_id, step_slug, task_index, status
(the task''s status after the call; NULL for an unknown task), outcome, reason and detail
(a sentence for refused and failed reports, else NULL):
completed (reason NULL); failed with type_violation (a single step feeding a map produced
a non-array: task, step and run failed); refused with payload_too_large (output larger than
pgflow.max_payload_bytes, default 16 MiB: nothing written, the task stays started; report
it with fail_task); ignored, writing nothing, with unknown_task, stale_attempt (a newer
attempt holds the task: the report is late), unknown_attempt (an attempt the task never
had), run_failed, run_cancelled or task_cancelled (the task was cancelled: its run failed
or was cancelled), step_not_started (the message is archived) or task_not_started
(completed, failed, requeued, completed by an earlier report of this call, or its row
changed by another transaction meanwhile: the task keeps its message; send the report
again). A repeated
call changes nothing more. Raises invalid_parameter_value for arrays of different lengths
or arrays that are not one-dimensional from index 1, and null_value_not_allowed for a NULL
key, writing nothing.
Empty arrays return nothing. pgflow-py extension (upstream workers call complete_task once
per task).';
