begin;
select plan(9);

-- SETUP: remind depends on order; other is a step of the flow it does not depend on
select pgflow_tests.reset_db();
select pgflow.create_flow('reminders');
select pgflow.add_step('reminders', 'order');
select pgflow.add_step('reminders', 'other');
select pgflow.add_step('reminders', 'remind', array['order']);

-- TEST: the path starts with input or a dependency of the step
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => 'other.at') $$, '22023',
  'add_timer: until_path ''other.at'' must be input.<key>... or <dependency>.<key>... (a dependency of step ''remind'')',
  'a step that is not a dependency raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => 'nowhere.at') $$, '22023',
  null, 'an unknown root raises invalid_parameter_value');

-- TEST: the path is dot-separated keys without white space
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => '') $$, '22023',
  null, 'an empty path raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => 'input.') $$, '22023',
  null, 'a trailing dot raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => '.input.at') $$, '22023',
  null, 'a leading dot raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => 'input..at') $$, '22023',
  null, 'an empty key raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => 'input.remind at') $$, '22023',
  null, 'a key with a space raises invalid_parameter_value');

-- TEST: nothing was written; a path into the dependency is accepted
select is((select count(*)::int from pgflow.step_waits), 0, 'no step_waits row was written');
select lives_ok($$ select pgflow.add_timer('reminders', 'remind', until_path => 'order.at') $$,
  'a path into a dependency''s output is accepted');

select * from finish();
rollback;
