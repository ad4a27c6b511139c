-- _max_payload_bytes: the size limit, in bytes, on run inputs and task outputs.

create function pgflow._max_payload_bytes()
returns bigint
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_setting text := pg_catalog.current_setting('pgflow.max_payload_bytes', true);
  v_bytes bigint;
begin
  -- Unset (NULL, or '' after a RESET in the session): the default, 16 MiB.
  if v_setting is null or pg_catalog.btrim(v_setting) = '' then
    return 16777216;
  end if;
  -- VALIDATE: a positive size, in bytes or with a unit pg_size_bytes knows.
  if v_setting ~* '^\s*[0-9]{1,15}(\.[0-9]+)?\s*(bytes|kb|mb|gb|tb|pb)?\s*$' then
    v_bytes := pg_catalog.pg_size_bytes(v_setting);
  end if;
  if v_bytes is null or v_bytes < 1 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('Invalid value %L for setting pgflow.max_payload_bytes', v_setting),
      detail = 'The limit must be a positive size: a number of bytes (16777216) or a number '
               || 'with a unit (''16MB''; units bytes, kB, MB, GB, TB, PB).',
      hint = 'Set it with ALTER DATABASE / ALTER ROLE ... SET pgflow.max_payload_bytes = ''16MB'', '
             || 'or reset it for the default (16MB).';
  end if;
  return v_bytes;
end;
$$;

comment on function pgflow._max_payload_bytes() is
'The size limit, in bytes, of a run input (start_flow) and of a task output
(complete_task): the setting pgflow.max_payload_bytes (a number of bytes, or a size with a
unit such as ''64MB''), 16777216 (16 MiB) when it is not set. Set it per database, role or
session: ALTER DATABASE db SET pgflow.max_payload_bytes = ''64MB''. Raises
invalid_parameter_value when the setting is not a positive size. pgflow-py extension.';
