-- _create_flow_from_shape: creates flow p_flow_slug from shape p_shape: create_flow with the
-- shape's options (maxAttempts, baseDelay, timeout; missing = defaults), then add_step for
-- each step in order with its options (maxAttempts, baseDelay, timeout, startDelay), stepType,
-- whenUnmet (default skip), whenExhausted (default fail) and the pattern values that are
-- defined.

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
