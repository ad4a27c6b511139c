-- Flow shapes: what a worker's flow definition looks like, and how it compares with the
-- definition stored in the database (auto-compilation, spec 7.17).

create function pgflow._get_flow_shape(p_flow_slug text)
returns jsonb
language sql
stable
set search_path = pg_catalog, pg_temp
as $$
  select jsonb_build_object('steps', coalesce(jsonb_agg(
    jsonb_build_object(
      'slug', s.step_slug,
      'stepType', s.step_type,
      'dependencies', coalesce((
        select jsonb_agg(d.dep_slug order by d.dep_slug)
        from pgflow.deps as d
        where d.flow_slug = s.flow_slug and d.step_slug = s.step_slug
      ), '[]'::jsonb),
      'whenUnmet', s.when_unmet,
      'whenExhausted', s.when_exhausted,
      'requiredInputPattern', case
        when s.required_input_pattern is null then '{"defined": false}'::jsonb
        else jsonb_build_object('defined', true, 'value', s.required_input_pattern)
      end,
      'forbiddenInputPattern', case
        when s.forbidden_input_pattern is null then '{"defined": false}'::jsonb
        else jsonb_build_object('defined', true, 'value', s.forbidden_input_pattern)
      end
    ) order by s.step_index
  ), '[]'::jsonb))
  from pgflow.steps as s
  where s.flow_slug = p_flow_slug;
$$;

comment on function pgflow._get_flow_shape(text) is
'Returns the stored shape of flow p_flow_slug: {"steps": [{slug, stepType, dependencies
(sorted), whenUnmet, whenExhausted, requiredInputPattern, forbiddenInputPattern}, ...]} in
step_index order, without options; {"steps": []} for an unknown flow. Patterns are
{"defined": false} or {"defined": true, "value": <json>}. As upstream pgflow 0.14.1.';

create function pgflow._compare_flow_shapes(p_local jsonb, p_db jsonb)
returns text[]
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_local jsonb := coalesce(p_local -> 'steps', '[]'::jsonb);
  v_db jsonb := coalesce(p_db -> 'steps', '[]'::jsonb);
  v_local_count int := jsonb_array_length(v_local);
  v_db_count int := jsonb_array_length(v_db);
  v_diffs text[] := '{}';
  v_a jsonb;
  v_b jsonb;
  v_a_deps text;
  v_b_deps text;
  v_field text;
begin
  if v_local_count <> v_db_count then
    v_diffs := v_diffs || format('Step count differs: %s vs %s', v_local_count, v_db_count);
  end if;

  for i in 0 .. greatest(v_local_count, v_db_count) - 1 loop
    v_a := v_local -> i;
    v_b := v_db -> i;
    if v_a is null then
      v_diffs := v_diffs || format('Step at index %s: missing in first shape (second has ''%s'')', i, v_b ->> 'slug');
      continue;
    end if;
    if v_b is null then
      v_diffs := v_diffs || format('Step at index %s: missing in second shape (first has ''%s'')', i, v_a ->> 'slug');
      continue;
    end if;

    if (v_a ->> 'slug') is distinct from (v_b ->> 'slug') then
      v_diffs := v_diffs || format('Step at index %s: slug differs ''%s'' vs ''%s''', i, v_a ->> 'slug', v_b ->> 'slug');
    end if;
    if coalesce(v_a ->> 'stepType', 'single') <> coalesce(v_b ->> 'stepType', 'single') then
      v_diffs := v_diffs || format('Step at index %s: type differs ''%s'' vs ''%s''', i,
                                   coalesce(v_a ->> 'stepType', 'single'), coalesce(v_b ->> 'stepType', 'single'));
    end if;
    select coalesce(string_agg(x, ', ' order by x), '') into v_a_deps
      from jsonb_array_elements_text(coalesce(v_a -> 'dependencies', '[]'::jsonb)) as x;
    select coalesce(string_agg(x, ', ' order by x), '') into v_b_deps
      from jsonb_array_elements_text(coalesce(v_b -> 'dependencies', '[]'::jsonb)) as x;
    if v_a_deps <> v_b_deps then
      v_diffs := v_diffs || format('Step at index %s: dependencies differ [%s] vs [%s]', i, v_a_deps, v_b_deps);
    end if;
    if coalesce(v_a ->> 'whenUnmet', 'skip') <> coalesce(v_b ->> 'whenUnmet', 'skip') then
      v_diffs := v_diffs || format('Step at index %s: whenUnmet differs ''%s'' vs ''%s''', i,
                                   coalesce(v_a ->> 'whenUnmet', 'skip'), coalesce(v_b ->> 'whenUnmet', 'skip'));
    end if;
    if coalesce(v_a ->> 'whenExhausted', 'fail') <> coalesce(v_b ->> 'whenExhausted', 'fail') then
      v_diffs := v_diffs || format('Step at index %s: whenExhausted differs ''%s'' vs ''%s''', i,
                                   coalesce(v_a ->> 'whenExhausted', 'fail'), coalesce(v_b ->> 'whenExhausted', 'fail'));
    end if;
    foreach v_field in array array['requiredInputPattern', 'forbiddenInputPattern']::text[] loop
      if coalesce(v_a -> v_field, '{"defined": false}'::jsonb) <> coalesce(v_b -> v_field, '{"defined": false}'::jsonb) then
        v_diffs := v_diffs || format('Step at index %s: %s differs ''%s'' vs ''%s''', i, v_field,
                                     coalesce(v_a -> v_field, '{"defined": false}'::jsonb)::text,
                                     coalesce(v_b -> v_field, '{"defined": false}'::jsonb)::text);
      end if;
    end loop;
  end loop;

  return v_diffs;
end;
$$;

comment on function pgflow._compare_flow_shapes(jsonb, jsonb) is
'Compares two flow shapes step by step (by position) and returns the differences as text,
{} when equal: "Step count differs: <a> vs <b>", "Step at index <i>: missing in first|second
shape (...)", "... slug|type differs ''<a>'' vs ''<b>''", "... dependencies differ [a, b]
vs [c]", "... whenUnmet|whenExhausted differs ...", "... requiredInputPattern|
forbiddenInputPattern differs ''<json>'' vs ''<json>''". Options are not compared.
Missing keys take their defaults (single, [], skip, fail, not defined). As upstream 0.14.1.';

create function pgflow._create_flow_from_shape(p_flow_slug text, p_shape jsonb)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step jsonb;
begin
  perform pgflow.create_flow(
    p_flow_slug,
    max_attempts => (p_shape -> 'options' ->> 'maxAttempts')::int,
    base_delay => (p_shape -> 'options' ->> 'baseDelay')::int,
    timeout => (p_shape -> 'options' ->> 'timeout')::int
  );
  for v_step in select value from jsonb_array_elements(coalesce(p_shape -> 'steps', '[]'::jsonb)) loop
    perform pgflow.add_step(
      flow_slug => p_flow_slug,
      step_slug => v_step ->> 'slug',
      deps_slugs => array(select jsonb_array_elements_text(coalesce(v_step -> 'dependencies', '[]'::jsonb))),
      max_attempts => (v_step -> 'options' ->> 'maxAttempts')::int,
      base_delay => (v_step -> 'options' ->> 'baseDelay')::int,
      timeout => (v_step -> 'options' ->> 'timeout')::int,
      start_delay => (v_step -> 'options' ->> 'startDelay')::int,
      step_type => coalesce(v_step ->> 'stepType', 'single'),
      required_input_pattern => case
        when (v_step -> 'requiredInputPattern' ->> 'defined')::boolean then v_step -> 'requiredInputPattern' -> 'value'
      end,
      forbidden_input_pattern => case
        when (v_step -> 'forbiddenInputPattern' ->> 'defined')::boolean then v_step -> 'forbiddenInputPattern' -> 'value'
      end,
      when_unmet => coalesce(v_step ->> 'whenUnmet', 'skip'),
      when_exhausted => coalesce(v_step ->> 'whenExhausted', 'fail')
    );
  end loop;
end;
$$;

comment on function pgflow._create_flow_from_shape(text, jsonb) is
'Creates flow p_flow_slug from shape p_shape: create_flow with the shape''s options
(maxAttempts, baseDelay, timeout; missing = defaults), then add_step for each step in
order with its options (maxAttempts, baseDelay, timeout, startDelay), stepType, whenUnmet
(default skip), whenExhausted (default fail) and the pattern values that are defined.
Raises whatever create_flow / add_step raise (option values that are not integers raise
invalid_text_representation). As upstream pgflow 0.14.1.';

create function pgflow.ensure_flow_compiled(flow_slug text, shape jsonb, allow_data_loss boolean default false)
returns jsonb
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_diffs text[];
begin
  -- VALIDATE: a shape is an object with a steps array (else a typo compiles an empty flow).
  if jsonb_typeof(ensure_flow_compiled.shape) is distinct from 'object'
     or jsonb_typeof(ensure_flow_compiled.shape -> 'steps') is distinct from 'array' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Shape of flow %L must be a JSON object with a "steps" array (got %s)',
                       ensure_flow_compiled.flow_slug,
                       coalesce(jsonb_typeof(ensure_flow_compiled.shape), 'NULL')),
      hint = 'Pass flow.shape() of a pgflow DSL flow; see pgflow._get_flow_shape for the format.';
  end if;

  perform pg_catalog.pg_advisory_xact_lock(1, pg_catalog.hashtext(ensure_flow_compiled.flow_slug));

  if not exists (select 1 from pgflow.flows as f where f.flow_slug = ensure_flow_compiled.flow_slug) then
    perform pgflow._create_flow_from_shape(ensure_flow_compiled.flow_slug, ensure_flow_compiled.shape);
    return jsonb_build_object('status', 'compiled', 'differences', '[]'::jsonb);
  end if;

  v_diffs := pgflow._compare_flow_shapes(
    ensure_flow_compiled.shape, pgflow._get_flow_shape(ensure_flow_compiled.flow_slug)
  );
  if cardinality(v_diffs) = 0 then
    return jsonb_build_object('status', 'verified', 'differences', '[]'::jsonb);
  end if;

  if pgflow.is_local() or ensure_flow_compiled.allow_data_loss then
    perform pgflow.delete_flow_and_data(ensure_flow_compiled.flow_slug);
    perform pgflow._create_flow_from_shape(ensure_flow_compiled.flow_slug, ensure_flow_compiled.shape);
    return jsonb_build_object('status', 'recompiled', 'differences', to_jsonb(v_diffs));
  end if;

  return jsonb_build_object('status', 'mismatch', 'differences', to_jsonb(v_diffs));
end;
$$;

comment on function pgflow.ensure_flow_compiled(text, jsonb, boolean) is
'Makes flow flow_slug match shape (the worker''s definition, see _get_flow_shape), under
pg_advisory_xact_lock(1, hashtext(flow_slug)). Returns {"status": s, "differences": [..]}:
compiled (flow was missing and is now created), verified (shapes equal), recompiled
(shapes differed and allow_data_loss or is_local(): the flow and ALL its runs were deleted
and recreated), mismatch (shapes differ; nothing changed, the worker must refuse to
start). Raises invalid_parameter_value, writing nothing, when shape is not a JSON object
with a "steps" array (pgflow-py; upstream compiles an empty flow). As upstream 0.14.1.';

create function pgflow.delete_flow_and_data(p_flow_slug text)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
begin
  if exists (select 1 from pgmq.meta as m where m.queue_name = p_flow_slug) then
    perform pgmq.drop_queue(p_flow_slug);
  else
    raise notice 'pgflow.delete_flow_and_data: queue % does not exist', p_flow_slug;
  end if;
  if exists (select 1 from pg_catalog.pg_extension as e where e.extname = 'pg_cron') then
    perform pgflow.unschedule_flow(sc.flow_slug, sc.schedule_name)
    from pgflow.schedules as sc where sc.flow_slug = p_flow_slug;
  end if;
  delete from pgflow.schedules as sc where sc.flow_slug = p_flow_slug;
  delete from pgflow.step_tasks as t where t.flow_slug = p_flow_slug;
  delete from pgflow.step_states as ss where ss.flow_slug = p_flow_slug;
  delete from pgflow.runs as r where r.flow_slug = p_flow_slug;
  delete from pgflow.deps as d where d.flow_slug = p_flow_slug;
  delete from pgflow.steps as s where s.flow_slug = p_flow_slug;
  delete from pgflow.flows as f where f.flow_slug = p_flow_slug;
end;
$$;

comment on function pgflow.delete_flow_and_data(text) is
'Deletes flow p_flow_slug with everything it owns: its pgmq queue and archive (a NOTICE,
not an error, when the queue is absent), its schedules and their pg_cron jobs, task rows, step states, runs, dependencies, steps
and the flow row. Irreversible; meant for development and recompilation.
As upstream pgflow 0.14.1.';
