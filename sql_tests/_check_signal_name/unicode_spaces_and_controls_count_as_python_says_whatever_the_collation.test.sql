begin;
select plan(8);

-- The names below: padded with a no-break space (U+00A0), only an em space (U+2003), with a
-- next-line control (U+0085) inside, with an ideographic space (U+3000) in front. Python's
-- str.isspace() / category Cc (the DSL's rules) refuse each; so must SQL, in the database's
-- collation, in "C" and in an ICU collation.

-- TEST: refused with the database's default collation
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'send_signal', 'go' || chr(160)), '22023', null,
  'a trailing no-break space is refused');
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'send_signal', chr(8195)), '22023', null,
  'an em space alone is blank');
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'send_signal', 'a' || chr(133) || 'b'), '22023', null,
  'U+0085 inside is a control character');
select throws_ok(format('select pgflow._check_signal_name(%L, %L)', 'send_signal', chr(12288) || 'go'), '22023', null,
  'a leading ideographic space is refused');

-- TEST: the same answer with the name in collation "C" and in an ICU collation
select throws_ok(format('select pgflow._check_signal_name(%L, %L collate "C")', 'send_signal', 'go' || chr(160)),
  '22023', null, 'a trailing no-break space is refused in collation "C"');
select throws_ok(format('select pgflow._check_signal_name(%L, %L collate "und-x-icu")', 'send_signal', chr(8195)),
  '22023', null, 'an em space alone is blank in an ICU collation');

-- TEST: letters beyond ASCII and inner spaces stay fine, in both collations
select lives_ok(format('select pgflow._check_signal_name(%L, %L collate "C")', 'send_signal', 'zaplacono rachunek ąę'),
  'non-ASCII letters and an inner space pass in collation "C"');
select lives_ok(format('select pgflow._check_signal_name(%L, %L collate "und-x-icu")', 'send_signal', 'zaplacono rachunek ąę'),
  'and in an ICU collation');

select * from finish();
rollback;
