-- _check_signal_name: one clear error for a signal name that cannot be used.

create function pgflow._check_signal_name(caller text, signal_name text)
returns void
language plpgsql
immutable
set search_path = pg_catalog, pg_temp
as $$
declare
  -- White space and control characters are what Python's str.isspace() and category Cc
  -- say (the DSL checks the same rules), by code point: the same answer whatever the
  -- collation (the classes \s and [[:cntrl:]] follow the locale). Beyond ASCII in a UTF-8
  -- database only: elsewhere \u0085 would name a byte of another character set.
  v_utf8 constant boolean := pg_catalog.getdatabaseencoding() = 'UTF8';
  v_space constant text := case when v_utf8
    then '[\u0009-\u000d\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]'
    else '[\u0009-\u000d\u001c-\u0020]' end;
  v_control constant text := case when v_utf8 then '[\u0001-\u001f\u007f-\u009f]' else '[\u0001-\u001f\u007f]' end;
  v_name text := _check_signal_name.signal_name;
begin
  -- (each test in collation "C", explicit: it wins over the collation the name came in)
  if v_name is null or (v_name collate "C") ~ ('^' || v_space || '*$')
     or length(v_name) > 128
     or (v_name collate "C") ~ v_control
     or (v_name collate "C") ~ ('^' || v_space || '|' || v_space || '$') then
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
signal_name is NULL, blank, longer than 128 characters, has a control character (U+0001-U+001F,
U+007F-U+009F) or leading or trailing white space (as Python''s str.isspace(): ASCII
white space, U+001C-U+001F, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
U+205F, U+3000; in a database that is not UTF-8, ASCII white space and controls only),
whatever the collation; else does nothing. Used by add_wait and send_signal. pgflow-py
internal.';
