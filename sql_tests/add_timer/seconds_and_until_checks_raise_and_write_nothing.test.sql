begin;
select plan(5);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('reminders');
select pgflow.add_step('reminders', 'remind');

-- TEST: exactly one of seconds and until_path
select throws_ok($$ select pgflow.add_timer('reminders', 'remind') $$, '22023',
  'add_timer: give either seconds or until_path, not both and not neither',
  'neither seconds nor until_path raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', 5, 'input.at') $$, '22023',
  'add_timer: give either seconds or until_path, not both and not neither',
  'both seconds and until_path raise invalid_parameter_value');

-- TEST: seconds are not negative
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', seconds => -1) $$, '22023',
  'add_timer: seconds must be >= 0 (got -1)',
  'negative seconds raise invalid_parameter_value');
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', seconds => null, until_path => null) $$,
  '22023', null, 'NULL seconds and NULL until_path raise invalid_parameter_value');

-- TEST: nothing was written
select is((select count(*)::int from pgflow.step_waits), 0, 'no step_waits row was written');

select * from finish();
rollback;
