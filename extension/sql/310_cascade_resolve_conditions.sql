-- cascade_resolve_conditions: evaluate if/ifNot conditions of steps that became ready.

create function pgflow.cascade_resolve_conditions(run_id uuid)
returns boolean
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_run pgflow.runs;
  v_rounds int := 0;
  v_unmet_fail text[];
  v_unmet_skip text[];
  v_unmet_cascade text[];
  v_skipped text[];
  v_cascade text;
begin
  -- GUARD: a finished run needs no evaluation.
  select r.* into v_run from pgflow.runs as r where r.run_id = cascade_resolve_conditions.run_id;
  if not found or v_run.status = 'failed' then
    return false;
  end if;
  if v_run.status = 'completed' then
    return true;
  end if;
  -- Fast path: no step of the flow has a condition.
  if not pgflow._flow_has_conditions(v_run.flow_slug) then
    return true;
  end if;

  loop
    v_rounds := v_rounds + 1;
    if v_rounds > 1000 then
      raise exception 'pgflow.cascade_resolve_conditions: run % did not settle after 1000 rounds', v_run.run_id;
    end if;

    -- Unmet conditions of ready steps (created, no pending dependency, some pattern set).
    -- Root steps are evaluated against the run input, others against the object of
    -- their completed dependencies' outputs.
    select
      coalesce(array_agg(ev.step_slug order by ev.step_index) filter (where ev.when_unmet = 'fail'), '{}'),
      coalesce(array_agg(ev.step_slug order by ev.step_index) filter (where ev.when_unmet = 'skip'), '{}'),
      coalesce(array_agg(ev.step_slug order by ev.step_index) filter (where ev.when_unmet = 'skip-cascade'), '{}')
    into v_unmet_fail, v_unmet_skip, v_unmet_cascade
    from (
      select
        s.step_slug, s.step_index, s.when_unmet, s.required_input_pattern, s.forbidden_input_pattern,
        case
          when s.deps_count = 0 then v_run.input
          else pgflow._dependency_outputs(v_run.run_id, s.flow_slug, s.step_slug)
        end as input
      from pgflow.step_states as ss
      join pgflow.steps as s on s.flow_slug = ss.flow_slug and s.step_slug = ss.step_slug
      where ss.run_id = v_run.run_id
        and ss.status = 'created'
        and ss.remaining_deps = 0
        and (s.required_input_pattern is not null or s.forbidden_input_pattern is not null)
    ) as ev
    where not (
      (ev.required_input_pattern is null or ev.input @> ev.required_input_pattern)
      and (ev.forbidden_input_pattern is null or not ev.input @> ev.forbidden_input_pattern)
    );

    -- a. fail mode: the first unmet step fails and takes the run with it.
    if cardinality(v_unmet_fail) > 0 then
      perform pgflow._fail_step(v_run.run_id, v_unmet_fail[1], 'Condition not met', 'Condition not met');
      return false;
    end if;

    -- b. skip mode: unmet steps are skipped; their dependents lose one pending parent each.
    v_skipped := pgflow._skip_steps(v_run.run_id, v_unmet_skip, 'condition_unmet');
    if cardinality(v_skipped) > 0 then
      perform pgflow._release_dependents(
        array_fill(v_run.run_id, array[cardinality(v_skipped)]), v_skipped);
    end if;

    -- c. skip-cascade mode: the step and its whole subtree are skipped.
    foreach v_cascade in array v_unmet_cascade loop
      perform pgflow._cascade_force_skip_steps(v_run.run_id, v_cascade, 'condition_unmet');
    end loop;

    exit when cardinality(v_skipped) = 0;
  end loop;

  return true;
end;
$$;

comment on function pgflow.cascade_resolve_conditions(uuid) is
'Evaluates the conditions of every step of run run_id that is created, has no pending
dependency and has a required_input_pattern or forbidden_input_pattern. Input: the run
input for root steps, else {dep_slug: output} over completed dependencies. Met iff input
@> required (or none) and not input @> forbidden (or none). Unmet with when_unmet = fail:
the first such step (step_index order) fails with ''Condition not met'' and so does the
run (remaining_steps unchanged, messages archived, step:failed then run:failed); returns
false. skip: skipped (condition_unmet), dependents lose a pending parent, a dependent map
gets 0 tasks, remaining_steps decremented. skip-cascade: _cascade_force_skip_steps.
Repeats while skip mode skipped something. Returns true when the run may continue (true
for a completed run, false for a failed or unknown one). As upstream pgflow 0.14.1.';
