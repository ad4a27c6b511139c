begin;
select plan(8);

-- TEST: short texts, NULL and the exact limit stay as they are
select is(pgflow._bounded_error_text('ValueError: bad value'), 'ValueError: bad value', 'a short text is kept');
select is(pgflow._bounded_error_text(null), null, 'NULL stays NULL');
select is(pgflow._bounded_error_text(repeat('x', 16384)), repeat('x', 16384), '16384 characters are kept whole');

-- TEST: one character over the limit: head, a line saying what was cut, tail
select is(
  pgflow._bounded_error_text(repeat('h', 8192) || 'M' || repeat('t', 8192)),
  repeat('h', 8192) || E'\n[... 1 characters cut ...]\n' || repeat('t', 8192),
  'the middle is cut, the first and last 8192 characters are kept'
);

-- TEST: a 5 MB text
select is(
  length(pgflow._bounded_error_text('Traceback head' || repeat('.', 5000000) || 'failing frame')),
  16384 + length(E'\n[... 5000027 characters cut ...]\n'),
  'a 5 MB text becomes 16384 characters and the cut line'
);
select ok(
  pgflow._bounded_error_text('Traceback head' || repeat('.', 5000000) || 'failing frame') like 'Traceback head%failing frame',
  'its head and its tail are kept'
);

-- TEST: characters, not bytes: a multibyte text is never cut inside a character
select is(
  length(pgflow._bounded_error_text(repeat('ä', 16384))),
  16384,
  '16384 two-byte characters are kept whole'
);
select is(
  pgflow._bounded_error_text(repeat('ä', 20000)),
  repeat('ä', 8192) || E'\n[... 3616 characters cut ...]\n' || repeat('ä', 8192),
  'a long multibyte text is cut between characters'
);

select * from finish();
rollback;
