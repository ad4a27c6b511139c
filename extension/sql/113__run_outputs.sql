-- _run_outputs: the outputs of runs that complete: their completed leaf steps' outputs.

create function pgflow._run_outputs(run_ids uuid[])
returns table (run_id uuid, output jsonb)
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- One call per batch of runs (a call per run cost more than the query).
  return query
  select k.run_id, (
    select jsonb_object_agg(ss.step_slug, ss.output)
    from pgflow.step_states as ss
    where ss.run_id = k.run_id
      and ss.status = 'completed'
      and not exists (
        select 1 from pgflow.deps as d
        where d.flow_slug = ss.flow_slug and d.dep_slug = ss.step_slug
      )
  )
  from unnest(_run_outputs.run_ids) with ordinality as k (run_id, ord)
  order by k.ord;
end;
$$;

comment on function pgflow._run_outputs(uuid[]) is
'For each run of run_ids (uuid[]), in array order, the output it gets when it completes:
run_id and a jsonb object {leaf_step_slug: output} over its completed leaf steps (steps no
other step depends on); skipped leaves are omitted; NULL when there is none (or the run is
unknown). Reads only; never raises. Used by _complete_runs. pgflow-py internal.';
