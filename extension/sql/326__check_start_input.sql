-- _check_start_input: the input rules of start_flow.

create function pgflow._check_start_input(flow_slug text, input jsonb, root_map text)
returns void
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
begin
  if _check_start_input.input is null then
    raise exception using
      errcode = 'not_null_violation',
      message = case
        when _check_start_input.root_map is not null
          then format('Flow %L has root map steps but input is NULL', _check_start_input.flow_slug)
        else format('Flow %L cannot start: input is NULL', _check_start_input.flow_slug)
      end,
      hint = 'Pass a JSON value, for example ''{}''::jsonb (a JSON array for flows with a root map step).';
  end if;
  if pg_catalog.pg_column_size(_check_start_input.input) > pgflow._max_payload_bytes() then
    perform pgflow._check_payload_size(_check_start_input.input,
                                       format('Input of flow %L', _check_start_input.flow_slug));
  end if;
  if _check_start_input.root_map is not null and jsonb_typeof(_check_start_input.input) <> 'array' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Flow %L has root map steps but input is not an array (got %s)',
                       _check_start_input.flow_slug, jsonb_typeof(_check_start_input.input)),
      hint = format('Root map step %L maps over the run input, which must be a JSON array.',
                    _check_start_input.root_map);
  end if;
end;
$$;

comment on function pgflow._check_start_input(text, jsonb, text) is
'Checks the input (jsonb) of a run of flow flow_slug whose first root map step is root_map
(NULL: none). Raises, writing nothing: not_null_violation for a NULL input;
program_limit_exceeded when it is larger than pgflow.max_payload_bytes;
invalid_parameter_value when the flow has a root map step and the input is not an array.
pgflow-py internal, used by start_flow.';
