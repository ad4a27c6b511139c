-- _set_actor: who acts and why, for the events recorded in the rest of the transaction.

create function pgflow._set_actor(actor text, reason text)
returns text[]
language plpgsql
volatile
set search_path = pg_catalog, pg_temp
as $$
declare
  v_previous text[] := array[pg_catalog.current_setting('pgflow.actor', true),
                             pg_catalog.current_setting('pgflow.reason', true)];
begin
  perform pg_catalog.set_config('pgflow.actor', coalesce(_set_actor.actor, ''), true);
  perform pg_catalog.set_config('pgflow.reason', coalesce(_set_actor.reason, ''), true);
  return v_previous;
end;
$$;

comment on function pgflow._set_actor(text, text) is
'Sets who acts and why for the events recorded from now on in this transaction (settings
pgflow.actor and pgflow.reason, read by _record_events; NULL: unset) and returns
the previous values as {actor, reason}, which the caller sets back when it is done, so a
later statement of the same transaction is not attributed to it. pgflow-py internal.';
