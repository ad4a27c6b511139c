begin;
select plan(9);
-- The test clock is on in this transaction, as pgflow.testing turns it on for its databases.
set local pgflow.test_clock = on;
select pgflow_tests.reset_db();

-- SETUP: a queued task (one message in the flow queue) and a clock moved by 10 s
select pgflow_tests.setup_flow('sequential');
select run_id from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow.advance_clock(10);
select pgflow_tests.message_vt('sequential', pgflow_tests.task_msg_id(:'run_id', 'first')) as vt \gset

-- TEST: NULL, NaN, negative, infinite and over 100 years raise invalid_parameter_value
select throws_ok($$select pgflow.advance_clock(null)$$, '22023', null, 'NULL raises');
select throws_ok($$select pgflow.advance_clock('NaN')$$, '22023', null, 'NaN raises');
select throws_ok($$select pgflow.advance_clock(-1)$$, '22023', null, 'a negative amount raises');
select throws_ok($$select pgflow.advance_clock('Infinity')$$, '22023', null, 'infinity raises');
select throws_ok($$select pgflow.advance_clock(3153600000.5)$$, '22023', null, 'over 100 years raises');
select lives_ok($$select pgflow.advance_clock(0)$$, '0 is accepted');

-- TEST: none of them wrote anything: the offset and the message's visibility are unchanged
select is((select time_offset from pgflow.test_clock), interval '10 seconds', 'the offset is still 10 s');
select is(pgflow._now(), now() + interval '10 seconds', 'the engine''s time is still now() + 10 s');
select is(pgflow_tests.message_vt('sequential', pgflow_tests.task_msg_id(:'run_id', 'first')), :'vt'::timestamptz,
  'the message''s vt is unchanged');

select * from finish();
rollback;
