begin;
select plan(4);

-- TEST: values at or above the minimum pass
select lives_ok($$select pgflow._validate_option('timeout', 1, 1)$$, 'exactly the minimum passes');
select lives_ok($$select pgflow._validate_option('base_delay', 2147483647, 0)$$, 'a value above the minimum passes');

-- TEST: NULL means inherit / default and always passes
select lives_ok($$select pgflow._validate_option('timeout', null, 1)$$, 'NULL passes');

-- TEST: it is immutable (usable anywhere, no side effects)
select is(
  (select provolatile from pg_proc where oid = 'pgflow._validate_option(text, int, int)'::regprocedure),
  'i'::"char",
  '_validate_option is immutable'
);

select * from finish();
rollback;
