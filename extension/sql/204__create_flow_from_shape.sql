-- _create_flow_from_shape: creates flow p_flow_slug from shape p_shape: create_flow with the
-- shape's options (maxAttempts, baseDelay, timeout, and pgflow-py's concurrencyLimit,
-- onLimit, runTimeout; missing = defaults), then add_step for each step in order with its
-- options (maxAttempts, baseDelay, timeout, startDelay, pgflow-py's maxInFlight), stepType,
-- whenUnmet (default skip), whenExhausted (default fail) and the pattern values that are
-- defined; then add_wait / add_timer for a step with a "wait" key (pgflow-py).

create function pgflow._create_flow_from_shape(p_flow_slug text, p_shape jsonb)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_step jsonb;
  v_wait jsonb;
begin
  perform pgflow.create_flow(
    p_flow_slug,
    max_attempts => (p_shape -> 'options' ->> 'maxAttempts')::int,
    base_delay => (p_shape -> 'options' ->> 'baseDelay')::int,
    timeout => (p_shape -> 'options' ->> 'timeout')::int,
    concurrency_limit => (p_shape -> 'options' ->> 'concurrencyLimit')::int,
    on_limit => p_shape -> 'options' ->> 'onLimit',
    run_timeout => (p_shape -> 'options' ->> 'runTimeout')::int
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
      when_exhausted => coalesce(v_step ->> 'whenExhausted', 'fail'),
      max_in_flight => (v_step -> 'options' ->> 'maxInFlight')::int
    );

    -- The wait of the step (pgflow-py); missing or JSON null: the step does not wait.
    v_wait := nullif(v_step -> 'wait', 'null'::jsonb);
    if v_wait is null then
      continue;
    end if;
    if jsonb_typeof(v_wait) = 'object' and v_wait ->> 'kind' = 'signal' then
      perform pgflow.add_wait(
        flow_slug => p_flow_slug,
        step_slug => v_step ->> 'slug',
        signal_name => v_wait ->> 'signal',
        signal_match => nullif(v_wait -> 'match', 'null'::jsonb),
        timeout => (v_wait ->> 'timeout')::int,
        on_timeout => coalesce(v_wait ->> 'onTimeout', 'fail'),
        runs_handler => coalesce((v_wait ->> 'handler')::boolean, true)
      );
    elsif jsonb_typeof(v_wait) = 'object' and v_wait ->> 'kind' = 'timer' then
      perform pgflow.add_timer(
        flow_slug => p_flow_slug,
        step_slug => v_step ->> 'slug',
        seconds => (v_wait ->> 'seconds')::int,
        until_path => v_wait ->> 'until'
      );
    else
      raise exception using
        errcode = 'invalid_parameter_value',
        message = format('Shape of flow %L: the wait of step %L must be an object with kind '
                         '"signal" or "timer" (got %s)', p_flow_slug, v_step ->> 'slug',
                         left(v_wait::text, 200)),
        hint = 'Pass flow.shape() of a pgflow DSL flow; see pgflow._get_flow_shape for the format.';
    end if;
  end loop;
end;
$$;

comment on function pgflow._create_flow_from_shape(text, jsonb) is
'Creates flow p_flow_slug from shape p_shape: create_flow with the shape''s options
(maxAttempts, baseDelay, timeout; missing = defaults), then add_step for each step in
order with its options (maxAttempts, baseDelay, timeout, startDelay), stepType, whenUnmet
(default skip), whenExhausted (default fail) and the pattern values that are defined.
Raises whatever create_flow / add_step raise (option values that are not integers raise
invalid_text_representation). As upstream pgflow 0.14.1, plus (pgflow-py): a step with a
"wait" key (see _get_flow_shape) is made to wait right after its add_step: kind signal
calls add_wait (signal, match, timeout, onTimeout, handler; missing: null, null, fail,
true), kind timer calls add_timer (seconds, until); a missing or JSON null wait is none.
Raises what add_wait / add_timer raise, and invalid_parameter_value for a wait that is not
an object of kind signal or timer. Also pgflow-py: the flow options concurrencyLimit,
onLimit (missing or null: queue) and runTimeout go to create_flow''s concurrency_limit,
on_limit and run_timeout, a step option maxInFlight to add_step''s max_in_flight (missing:
none); create_flow and add_step raise for values out of range. Called by
ensure_flow_compiled, whose transaction a raise leaves without any part of the flow.';
