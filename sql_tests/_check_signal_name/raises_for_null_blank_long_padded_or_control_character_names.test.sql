begin;
select plan(12);
select pgflow_tests.reset_db();

-- The error fields of one statement: {sqlstate, message, hint}; NULL when it did not raise.
create function pg_temp.error_of(sql text) returns text[] language plpgsql as $f$
declare v_state text; v_message text; v_hint text;
begin
  execute sql;
  return null;
exception when others then
  get stacked diagnostics v_state = returned_sqlstate, v_message = message_text, v_hint = pg_exception_hint;
  return array[v_state, v_message, v_hint];
end $f$;

-- TEST: NULL, empty and blank names raise invalid_parameter_value naming the caller and quoting the name
select throws_ok($$select pgflow._check_signal_name('add_wait', null)$$, '22023',
  'add_wait: signal name must be 1 to 128 characters, not blank, without control characters or surrounding spaces (got NULL)',
  'a NULL name raises 22023, got NULL');
select throws_ok($$select pgflow._check_signal_name('send_signal', '')$$, '22023',
  'send_signal: signal name must be 1 to 128 characters, not blank, without control characters or surrounding spaces (got '''')',
  'an empty name raises 22023, naming send_signal');
select throws_ok($$select pgflow._check_signal_name('add_wait', '   ')$$, '22023',
  'add_wait: signal name must be 1 to 128 characters, not blank, without control characters or surrounding spaces (got ''   '')',
  'a name of spaces raises 22023');

-- TEST: more than 128 characters
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', repeat('x', 129)), '22023', null,
  'a name of 129 characters raises 22023');
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', repeat('é', 129)), '22023', null,
  'a name of 129 two-byte characters raises 22023');

-- TEST: a control character anywhere
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', E'ap\nproved'), '22023', null,
  'a newline inside the name raises 22023');
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', E'ap\tproved'), '22023', null,
  'a tab inside the name raises 22023');
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', 'ap' || chr(127) || 'proved'), '22023', null,
  'a DEL character inside the name raises 22023');

-- TEST: leading or trailing white space
select throws_ok($$select pgflow._check_signal_name('add_wait', ' approved')$$, '22023', null,
  'a leading space raises 22023');
select throws_ok($$select pgflow._check_signal_name('add_wait', 'approved ')$$, '22023', null,
  'a trailing space raises 22023');
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'add_wait', E'approved\n'), '22023', null,
  'a trailing newline raises 22023');

-- TEST: the error carries a hint with examples
select is(pg_temp.error_of($$select pgflow._check_signal_name('add_wait', '')$$),
  array['22023',
        'add_wait: signal name must be 1 to 128 characters, not blank, without control characters or surrounding spaces (got '''')',
        'For example ''approved'' or ''payment.received''.'],
  'sqlstate, message and hint of the error');

select * from finish();
rollback;
