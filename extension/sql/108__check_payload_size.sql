-- _check_payload_size: raises program_limit_exceeded when a run input or task output is over
-- the size limit.

create function pgflow._check_payload_size(payload jsonb, payload_name text)
returns void
language plpgsql
stable
set search_path = pg_catalog, pg_temp
as $$
declare
  v_error text := pgflow._payload_size_error(payload, payload_name);
begin
  if v_error is not null then
    raise exception using
      errcode = 'program_limit_exceeded',
      message = v_error,
      hint = 'Pass a reference to large data (a table row, an object-store key) instead of the '
             || 'data itself, or raise the limit: '
             || 'ALTER DATABASE ... SET pgflow.max_payload_bytes = ''64MB''.';
  end if;
end;
$$;

comment on function pgflow._check_payload_size(jsonb, text) is
'Raises program_limit_exceeded "<payload_name> is <n> bytes, over the limit of <limit>
bytes (setting pgflow.max_payload_bytes)" (_payload_size_error) when payload is larger than
_max_payload_bytes(); NULL passes. Called by start_flow (run input) and complete_task (task
output) before they write anything. pgflow-py extension.';
