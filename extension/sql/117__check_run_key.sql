-- _check_run_key: the rule every run key follows (idempotency_key, concurrency_key).

create function pgflow._check_run_key(caller text, key_name text, key text)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if _check_run_key.key is null then
    return;
  end if;
  if btrim(_check_run_key.key, E' \t\n\r\f' || chr(11)) = '' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: %s must not be blank (got %L)', _check_run_key.caller,
                       _check_run_key.key_name, _check_run_key.key),
      hint = format('Pass NULL for no %s, or a text that names the thing, e.g. ''order-42''.',
                    _check_run_key.key_name);
  end if;
  if length(_check_run_key.key) > 255 then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: %s must be at most 255 characters (got %s)', _check_run_key.caller,
                       _check_run_key.key_name, length(_check_run_key.key));
  end if;
end;
$$;

comment on function pgflow._check_run_key(text, text, text) is
'Checks run key key (an idempotency_key or concurrency_key, named key_name in messages of
function caller): NULL passes; raises invalid_parameter_value "<caller>: <key_name> must not
be blank" for an empty text or one of ASCII whitespace only (space, tab, newline, carriage
return, form feed, vertical tab; other characters, e.g. U+00A0, make a key) and "<caller>: <key_name> must be at most 255
characters" for a longer one. Writes nothing. pgflow-py internal.';
