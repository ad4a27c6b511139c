-- _broadcast: sends one realtime event (event such as run:started or step:<slug>:completed,
-- payload jsonb) on topic pgflow:run:<run_id> with private = false, when realtime.send exists;
-- otherwise does nothing.

create function pgflow._broadcast(run_id uuid, event text, payload jsonb)
returns void
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  -- Kept in a variable: realtime.send may not exist when this function is checked.
  v_send text := 'select realtime.send($1, $2, $3, false)';
begin
  if pgflow._realtime_enabled() then
    execute v_send using payload, event, 'pgflow:run:' || run_id::text;
  end if;
end;
$$;

comment on function pgflow._broadcast(uuid, text, jsonb) is
'Sends one realtime event (event such as run:started or step:<slug>:completed, payload
jsonb) on topic pgflow:run:<run_id> with private = false, when realtime.send exists;
otherwise does nothing. Callers in hot paths check _realtime_enabled() once and skip
building payloads when it is false.';
