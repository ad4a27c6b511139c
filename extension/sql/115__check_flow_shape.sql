-- _check_flow_shape: the argument check of the functions that take a worker's flow shape.

create function pgflow._check_flow_shape(flow_slug text, shape jsonb)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  -- A shape is an object with a steps array (else a typo would compile an empty flow).
  if jsonb_typeof(_check_flow_shape.shape) is distinct from 'object'
     or jsonb_typeof(_check_flow_shape.shape -> 'steps') is distinct from 'array' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Shape of flow %L must be a JSON object with a "steps" array (got %s)',
                       _check_flow_shape.flow_slug, coalesce(jsonb_typeof(_check_flow_shape.shape), 'NULL')),
      hint = 'Pass flow.shape() of a pgflow DSL flow; see pgflow._get_flow_shape for the format.';
  end if;
end;
$$;

comment on function pgflow._check_flow_shape(text, jsonb) is
'Raises invalid_parameter_value "Shape of flow <slug> must be a JSON object with a
"steps" array (got <type>)" unless shape is a JSON object whose steps is an array; else
does nothing. Used by ensure_flow_compiled and sync_flow_options before they write
anything. pgflow-py internal.';
