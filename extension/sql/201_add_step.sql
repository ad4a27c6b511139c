-- add_step: append a step (and its dependency edges) to a flow. Idempotent.

create function pgflow.add_step(
  flow_slug text,
  step_slug text,
  deps_slugs text[] default '{}',
  max_attempts int default null,
  base_delay int default null,
  timeout int default null,
  start_delay int default null,
  step_type text default 'single',
  required_input_pattern jsonb default null,
  forbidden_input_pattern jsonb default null,
  when_unmet text default 'skip',
  when_exhausted text default 'fail',
  max_in_flight int default null
)
returns pgflow.steps
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step pgflow.steps;
  v_deps text[] := coalesce(add_step.deps_slugs, '{}');
  v_type text := coalesce(add_step.step_type, 'single');
  v_existing_deps text[];
  v_missing text;
begin
  -- LOCK: serialise definitions of one flow (step_index = max + 1).
  perform 1 from pgflow.flows as f where f.flow_slug = add_step.flow_slug for update;
  if not found then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Flow %L does not exist', add_step.flow_slug),
      hint = 'Create it first with pgflow.create_flow.';
  end if;

  -- VALIDATE (also for an existing step: bad input always raises)
  if not pgflow.is_valid_slug(add_step.step_slug) then
    raise exception using
      errcode = 'check_violation',
      constraint = 'steps_step_slug_check',
      message = format('Invalid step slug %L in flow %L', add_step.step_slug, add_step.flow_slug),
      hint = 'A slug has 1 to 128 characters matching ^[a-zA-Z_][a-zA-Z0-9_]*$ and is not "run".';
  end if;
  if v_type not in ('single', 'map') then
    raise exception using
      errcode = 'check_violation',
      constraint = 'steps_step_type_check',
      message = format('Invalid step_type %L for step %L (expected single or map)', v_type, add_step.step_slug);
  end if;
  if array_position(v_deps, null) is not null then
    raise exception using
      errcode = 'null_value_not_allowed',
      message = format('Step %L lists a NULL dependency', add_step.step_slug);
  end if;
  if cardinality(v_deps) <> (select count(distinct x) from unnest(v_deps) as x) then
    raise exception using
      errcode = 'unique_violation',
      message = format('Step %L lists a dependency twice: %s', add_step.step_slug, v_deps);
  end if;
  if v_type = 'map' and cardinality(v_deps) > 1 then
    raise exception using
      errcode = 'check_violation',
      message = format('Map step %L can have at most one dependency, but %s were given: %s',
                       add_step.step_slug, cardinality(v_deps), array_to_string(v_deps, ', ')),
      hint = 'A root map (no dependency) maps over the run input; a dependent map over its one parent''s output.';
  end if;
  if add_step.step_slug = any(v_deps) then
    raise exception using
      errcode = 'check_violation',
      constraint = 'deps_check',
      message = format('Step %L cannot depend on itself', add_step.step_slug);
  end if;
  select x into v_missing
  from unnest(v_deps) as x
  where not exists (
    select 1 from pgflow.steps as s where s.flow_slug = add_step.flow_slug and s.step_slug = x
  )
  limit 1;
  if v_missing is not null then
    raise exception using
      errcode = 'foreign_key_violation',
      message = format('Dependency %L of step %L does not exist in flow %L',
                       v_missing, add_step.step_slug, add_step.flow_slug),
      hint = 'Add dependencies before the steps that use them (definition order is topological order).';
  end if;
  perform pgflow._validate_step_options(add_step.step_slug, add_step.max_attempts,
    add_step.base_delay, add_step.timeout, add_step.start_delay, add_step.required_input_pattern,
    add_step.forbidden_input_pattern, add_step.when_unmet, add_step.when_exhausted);
  perform pgflow._validate_option('max_in_flight', add_step.max_in_flight, 1);

  -- GUARD: an existing step with the same dependencies is returned unchanged.
  select s.* into v_step
  from pgflow.steps as s
  where s.flow_slug = add_step.flow_slug and s.step_slug = add_step.step_slug;
  if found then
    select coalesce(array_agg(d.dep_slug order by d.dep_slug), '{}') into v_existing_deps
    from pgflow.deps as d
    where d.flow_slug = add_step.flow_slug and d.step_slug = add_step.step_slug;
    if v_existing_deps is distinct from
       (select coalesce(array_agg(x order by x), '{}') from (select distinct unnest(v_deps) as x) as u) then
      raise exception using
        errcode = 'unique_violation',
        message = format('Step %L of flow %L already exists with dependencies %s, not %s',
                         add_step.step_slug, add_step.flow_slug, v_existing_deps, v_deps),
        hint = 'Steps cannot be redefined; delete the flow (pgflow.delete_flow_and_data) or use a new slug.';
    end if;
    return v_step;
  end if;

  -- MUTATE
  insert into pgflow.steps (
    flow_slug, step_slug, step_type, step_index, deps_count,
    opt_max_attempts, opt_base_delay, opt_timeout, opt_start_delay,
    required_input_pattern, forbidden_input_pattern, when_unmet, when_exhausted, opt_max_in_flight
  )
  values (
    add_step.flow_slug,
    add_step.step_slug,
    v_type,
    (select coalesce(max(s.step_index) + 1, 0) from pgflow.steps as s where s.flow_slug = add_step.flow_slug),
    cardinality(v_deps),
    add_step.max_attempts,
    add_step.base_delay,
    add_step.timeout,
    add_step.start_delay,
    add_step.required_input_pattern,
    add_step.forbidden_input_pattern,
    add_step.when_unmet,
    add_step.when_exhausted,
    add_step.max_in_flight
  )
  returning * into v_step;

  insert into pgflow.deps (flow_slug, dep_slug, step_slug)
  select add_step.flow_slug, d, add_step.step_slug
  from unnest(v_deps) as d;

  return v_step;
end;
$$;

comment on function pgflow.add_step(text, text, text[], int, int, int, int, text, jsonb, jsonb, text, text, int) is
'Appends step step_slug to flow flow_slug and returns the steps row. deps_slugs: slugs of
steps already in the flow (definition order is topological order, so cycles cannot be
formed). max_attempts (>= 0), base_delay (seconds, >= 0), timeout (seconds, >= 1):
NULL inherits the flow value. start_delay (seconds, >= 0) delays the first message only.
step_type single (default; NULL = single) or map (at most one dependency: none = map over
the run input, one = map over that parent''s array output). required_input_pattern /
forbidden_input_pattern: jsonb objects matched by containment (@>) against the step
input; when_unmet and when_exhausted: fail, skip or skip-cascade. max_in_flight
(pgflow-py, >= 1; NULL: no limit): at most that many tasks of the step are started at
once, across runs and workers (further messages wait in pgflow.throttled_messages).
Idempotent: an existing step with the same dependencies is returned unchanged (its
options, max_in_flight included, are not updated: pgflow.sync_flow_options changes them).
Raises (writing nothing): foreign_key_violation for an unknown flow or dependency;
check_violation for an invalid slug or type, a self dependency, a map step with two or
more dependencies, an option out of range, an invalid mode or a non-object pattern;
unique_violation for a repeated dependency or a redefinition with other dependencies
(upstream silently adds the edges and corrupts deps_count). As upstream pgflow 0.14.1.';
