begin;
select plan(3);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
set local timezone = 'UTC';
select pgflow_tests.reset_db();

-- SETUP: the engine's time is one hour ahead of now()
select pgflow.advance_clock(3600);

-- TEST: a deadline after now() but before the engine's time is not in the future
select throws_ok($$select pgflow._check_start_options(null, null, now() + interval '30 minutes')$$, '22023',
  format('start_flow: deadline %s is not in the future (now is %s)',
         now() + interval '30 minutes', now() + interval '1 hour'),
  'now() + 30 min raises 22023, giving the engine''s time (now() + 1 h)');
select throws_ok($$select pgflow._check_start_options(null, null, now() + interval '1 hour')$$, '22023', null,
  'the engine''s time itself raises 22023');

-- TEST: after the engine's time it passes
select lives_ok($$select pgflow._check_start_options(null, null, now() + interval '1 hour 1 second')$$,
  'one second after the engine''s time passes');

select * from finish();
rollback;
