-- Flow shapes: what a worker's flow definition looks like, and how it compares with the
-- definition stored in the database (auto-compilation, as upstream pgflow). A step that
-- waits (step_waits, pgflow-py) has a "wait" key; other steps' shapes are upstream's.

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
    ) || case w.kind
      when 'signal' then jsonb_build_object('wait', jsonb_build_object(
        'kind', 'signal',
        'signal', w.signal_name,
        'match', w.signal_match,
        'timeout', w.timeout_seconds,
        'onTimeout', w.on_timeout,
        'handler', w.runs_handler
      ))
      when 'timer' then jsonb_build_object('wait', jsonb_build_object(
        'kind', 'timer',
        'seconds', w.sleep_seconds,
        'until', w.sleep_until
      ))
      else '{}'::jsonb
    end
    order by s.step_index
  ), '[]'::jsonb))
  from pgflow.steps as s
  left join pgflow.step_waits as w on w.flow_slug = s.flow_slug and w.step_slug = s.step_slug
  where s.flow_slug = p_flow_slug;
$$;

comment on function pgflow._get_flow_shape(text) is
'Returns the stored shape of flow p_flow_slug: {"steps": [{slug, stepType, dependencies
(sorted), whenUnmet, whenExhausted, requiredInputPattern, forbiddenInputPattern}, ...]} in
step_index order, without options; {"steps": []} for an unknown flow. Patterns are
{"defined": false} or {"defined": true, "value": <json>}. As upstream pgflow 0.14.1, plus
(pgflow-py) a "wait" key on the steps that wait (step_waits), absent on the others: for a
signal {"kind": "signal", "signal": <name>, "match": <object or null>, "timeout": <seconds
or null>, "onTimeout": <mode>, "handler": <bool>}, for a timer {"kind": "timer",
"seconds": <int or null>, "until": <path or null>}.';
