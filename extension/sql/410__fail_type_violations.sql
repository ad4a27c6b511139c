-- _fail_type_violations: the reports whose output broke a map step's input type fail their
-- task, step and run (the set form of _fail_task_with_type_violation for _complete_tasks).

create function pgflow._fail_type_violations(
  run_ids uuid[],
  step_slugs text[],
  task_indexes int[],
  outputs jsonb[],
  positions int[]
)
returns table (pos int, status text, detail text)
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_item record;
begin
  for v_item in
    select u.pos, t as task, u.output, pgflow._map_step_fed_by(t.flow_slug, t.step_slug) as map_step_slug
    from unnest(_fail_type_violations.run_ids, _fail_type_violations.step_slugs,
                _fail_type_violations.task_indexes, _fail_type_violations.outputs)
      with ordinality as u (run_id, step_slug, task_index, output, pos)
    join pgflow.step_tasks as t
      on t.run_id = u.run_id and t.step_slug = u.step_slug and t.task_index = u.task_index
    where u.pos = any(_fail_type_violations.positions)
    order by u.pos
  loop
    perform pgflow._fail_task_with_type_violation(v_item.task, v_item.map_step_slug, v_item.output,
                                                  coalesce(jsonb_typeof(v_item.output), 'null'));
    return query
    select v_item.pos::int, t.status, t.error_message
    from pgflow.step_tasks as t
    where t.run_id = (v_item.task).run_id and t.step_slug = (v_item.task).step_slug
      and t.task_index = (v_item.task).task_index;
  end loop;
end;
$$;

comment on function pgflow._fail_type_violations(uuid[], text[], int[], jsonb[], int[]) is
'For each position i in positions (int[], 1-based, into the report arrays), in ascending
order: the task (run_ids[i], step_slugs[i], task_indexes[i]), of a single step feeding a map
step, produced outputs[i], which is not an array; it fails with [TYPE_VIOLATION], and so do
its step and its run, whatever max_attempts and when_exhausted say
(_fail_task_with_type_violation). Returns per position: pos, the task''s status after the
call (failed) and detail, its error message. Positions naming no task return nothing. The
caller holds the runs (_lock_task_reports) and sends each such report alone for
its run. pgflow-py internal, used by _complete_tasks.';
