-- _payload_size_error: the error text for a run input or task output over the size limit
-- (NULL when within it).

create function pgflow._payload_size_error(payload jsonb, payload_name text)
returns text
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_size int := pg_catalog.pg_column_size(payload);
  v_limit bigint := pgflow._max_payload_bytes();
begin
  if v_size > v_limit then
    return format('%s is %s bytes, over the limit of %s bytes (setting pgflow.max_payload_bytes)',
                  payload_name, v_size, v_limit);
  end if;
  return null;
end;
$$;

comment on function pgflow._payload_size_error(jsonb, text) is
'Returns "<payload_name> is <n> bytes, over the limit of <limit> bytes (setting
pgflow.max_payload_bytes)" when payload is larger than _max_payload_bytes(), else NULL
(also for a NULL payload). Size = pg_column_size(payload): the bytes of the binary jsonb
value (read from its header, so the check costs the same for any size; close to the length
of the JSON text). Raises invalid_parameter_value for an invalid setting (see
_max_payload_bytes). Used by _check_payload_size and by complete_tasks for refused
reports. pgflow-py internal.';
