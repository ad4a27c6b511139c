begin;
select plan(9);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'approved');

-- TEST: a name that send_signal could never match is refused
select throws_ok($$ select pgflow.add_wait('approval', 'approved', null) $$, '22023',
  'add_wait: signal name must be 1 to 128 characters, not blank, without control characters or surrounding spaces (got NULL)',
  'a NULL name raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', '') $$, '22023', null,
  'an empty name raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', '   ') $$, '22023', null,
  'a blank name raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', repeat('x', 129)) $$, '22023', null,
  'a name of 129 characters raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', E'ap\nproved') $$, '22023', null,
  'a name with a control character raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', ' approved') $$, '22023', null,
  'a name with a leading space raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'approved ') $$, '22023', null,
  'a name with a trailing space raises invalid_parameter_value');

-- TEST: nothing was written; the longest name is accepted
select is((select count(*)::int from pgflow.step_waits), 0, 'no step_waits row was written');
select lives_ok($$ select pgflow.add_wait('approval', 'approved', repeat('x', 128)) $$,
  'a name of 128 characters is accepted');

select * from finish();
rollback;
