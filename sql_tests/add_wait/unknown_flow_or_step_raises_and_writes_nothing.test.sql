begin;
select plan(4);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'submit');

-- TEST: the step must exist (add_step first)
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'approved') $$, '23503',
  'add_wait: step ''approved'' of flow ''approval'' does not exist',
  'an unknown step raises foreign_key_violation');
select throws_ok($$ select pgflow.add_wait('nope', 'submit', 'approved') $$, '23503',
  'add_wait: step ''submit'' of flow ''nope'' does not exist',
  'an unknown flow raises foreign_key_violation');
select throws_ok($$ select pgflow.add_wait(null, null, 'approved') $$, '23503', null,
  'NULL flow and step raise foreign_key_violation');

-- TEST: nothing was written
select is((select count(*)::int from pgflow.step_waits), 0, 'no step_waits row was written');

select * from finish();
rollback;
