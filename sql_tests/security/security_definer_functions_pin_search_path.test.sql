begin;
select plan(2);

-- TEST: a SECURITY DEFINER function without a pinned search_path runs the caller's objects
-- with the owner's rights
select is(
  array(select pgflow_tests.signature(p.oid) from pg_proc as p
        where p.pronamespace = 'pgflow'::regnamespace
          and p.prosecdef
          and not exists (select 1 from unnest(p.proconfig) as c where c like 'search_path=%')
        order by 1),
  '{}'::text[],
  'no SECURITY DEFINER function of pgflow lacks a pinned search_path');

-- TEST: the check above is not vacuous
select ok(
  (select count(*) from pg_proc as p where p.pronamespace = 'pgflow'::regnamespace and p.prosecdef) > 0,
  'the check above saw SECURITY DEFINER functions');

select * from finish();
rollback;
