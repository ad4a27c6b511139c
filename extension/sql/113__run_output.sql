-- _run_output: the output of a run that completes: its completed leaf steps' outputs.

create function pgflow._run_output(run_id uuid)
returns jsonb
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  return (
    select jsonb_object_agg(ss.step_slug, ss.output)
    from pgflow.step_states as ss
    where ss.run_id = _run_output.run_id
      and ss.status = 'completed'
      and not exists (
        select 1 from pgflow.deps as d
        where d.flow_slug = ss.flow_slug and d.dep_slug = ss.step_slug
      )
  );
end;
$$;

comment on function pgflow._run_output(uuid) is
'The output a run gets when it completes: a jsonb object {leaf_step_slug: output} over its
completed leaf steps (steps no other step depends on); skipped leaves are omitted; NULL
when there is none (or the run is unknown). Reads only; never raises. Used by
_complete_runs. pgflow-py internal.';
