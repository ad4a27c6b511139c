begin;
select plan(15);

-- TEST: keys of ASCII whitespace only (space, tab, newline, carriage return, form feed,
-- vertical tab) are blank: 22023
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'idempotency_key', E' \t\n\r\f' || chr(11)),
  '22023', null, 'a key of all six ASCII whitespace characters raises');
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'concurrency_key', chr(11)),
  '22023', null, 'a key of one vertical tab (chr(11)) raises');
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'concurrency_key', chr(11) || chr(11) || ' '),
  '22023', null, 'a key of vertical tabs and a space raises');
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'idempotency_key', E'\f'),
  '22023', null, 'a key of one form feed raises');
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'idempotency_key', E'\r\n'),
  '22023', null, 'a key of a carriage return and a newline raises');

-- TEST: the letters of the escapes (v, t, f, n, r) are ordinary characters: such keys pass
select lives_ok($$select pgflow._check_run_key('start_flow', 'idempotency_key', 'vvv')$$, 'key vvv passes');
select lives_ok($$select pgflow._check_run_key('start_flow', 'idempotency_key', 'ttt')$$, 'key ttt passes');
select lives_ok($$select pgflow._check_run_key('start_flow', 'idempotency_key', 'fff')$$, 'key fff passes');
select lives_ok($$select pgflow._check_run_key('start_flow', 'concurrency_key', 'nr')$$, 'key nr passes');
select lives_ok($$select pgflow._check_run_key('start_flow', 'concurrency_key', ' v ')$$,
  'a v between spaces passes');

-- TEST: a non-ASCII space (U+00A0, no-break space) makes a key, alone or with ASCII spaces
select lives_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'concurrency_key', chr(160)),
  'a key of one U+00A0 passes');
select lives_ok(
  format('select pgflow._check_run_key(%L, %L, %L)', 'start_flow', 'concurrency_key', E' \t' || chr(160) || E'\n'),
  'a key of U+00A0 between ASCII whitespace passes');

-- TEST: whatever the collation: under an ICU collation, where the regex class \s also
-- matches U+00A0 and U+2003 (em space), such keys still pass and ASCII blanks still raise
-- (the parameter takes the collation of the argument)
select lives_ok(
  format('select pgflow._check_run_key(%L, %L, %L collate "und-x-icu")', 'start_flow', 'concurrency_key', chr(160)),
  'a key of one U+00A0 passes under collation und-x-icu');
select lives_ok(
  format('select pgflow._check_run_key(%L, %L, %L collate "und-x-icu")', 'start_flow', 'idempotency_key',
         chr(8195) || ' '),
  'a key of U+2003 and a space passes under collation und-x-icu');
select throws_ok(
  format('select pgflow._check_run_key(%L, %L, %L collate "und-x-icu")', 'start_flow', 'idempotency_key', E' \t' || chr(11)),
  '22023', null, 'a key of ASCII whitespace raises under collation und-x-icu');

select * from finish();
rollback;
