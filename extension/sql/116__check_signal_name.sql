-- _check_signal_name: one clear error for a signal name that cannot be used.

create function pgflow._check_signal_name(caller text, signal_name text)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
begin
  if _check_signal_name.signal_name is null or _check_signal_name.signal_name ~ '^\s*$'
     or length(_check_signal_name.signal_name) > 128
     or _check_signal_name.signal_name ~ '[[:cntrl:]]'
     or _check_signal_name.signal_name ~ '^\s|\s$' then
    raise exception using
      errcode = 'invalid_parameter_value',
      message = format('%s: signal name must be 1 to 128 characters, not blank, without control '
                       'characters or surrounding spaces (got %L)',
                       _check_signal_name.caller, _check_signal_name.signal_name),
      hint = 'For example ''approved'' or ''payment.received''.';
  end if;
end;
$$;

comment on function pgflow._check_signal_name(text, text) is
'Raises invalid_parameter_value "<caller>: signal name must be 1 to 128 characters, ..." when
signal_name is NULL, blank, longer than 128 characters, has a control character or leading
or trailing white space; else does nothing. Used by add_wait and send_signal. pgflow-py
internal.';
