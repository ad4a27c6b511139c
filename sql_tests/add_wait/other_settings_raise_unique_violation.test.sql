begin;
select plan(8);

-- SETUP: step approved waits for "approved", any payload, no timeout, with a handler
select pgflow_tests.reset_db();
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'approved');
select pgflow.add_wait('approval', 'approved', 'approved');
create temp table first_row as select * from pgflow.step_waits;

-- TEST: any other setting for the same step is refused
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'rejected') $$, '23505',
  'Step ''approved'' of flow ''approval'' already waits, with other settings',
  'another signal name raises unique_violation');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'approved', signal_match => '{"a": 1}') $$,
  '23505', null, 'another match raises unique_violation');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'approved', timeout => 10) $$,
  '23505', null, 'another timeout raises unique_violation');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'approved', on_timeout => 'skip') $$,
  '23505', null, 'another on_timeout raises unique_violation');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'approved', runs_handler => false) $$,
  '23505', null, 'another runs_handler raises unique_violation');
select throws_ok($$ select pgflow.add_timer('approval', 'approved', seconds => 5) $$,
  '23505', null, 'making the waiting step a timer raises unique_violation');

-- TEST: nothing changed
select is((select count(*)::int from pgflow.step_waits), 1, 'still one step_waits row');
select is((select to_jsonb(w) from pgflow.step_waits as w), (select to_jsonb(f) from first_row as f),
  'the stored wait is unchanged');

select * from finish();
rollback;
