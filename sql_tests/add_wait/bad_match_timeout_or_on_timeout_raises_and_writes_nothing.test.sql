begin;
select plan(8);

-- SETUP
select pgflow_tests.reset_db();
select pgflow.create_flow('approval');
select pgflow.add_step('approval', 'approved');

-- TEST: signal_match must be an object
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'ok', signal_match => '[1]') $$, '22023',
  'add_wait: signal_match must be a JSON object (got array)',
  'an array match raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'ok', signal_match => '"eu"') $$, '22023',
  null, 'a string match raises invalid_parameter_value');

-- TEST: timeout is a positive number of seconds
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'ok', timeout => 0) $$, '22023',
  'add_wait: timeout must be a positive number of seconds or NULL (got 0)',
  'a timeout of 0 raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'ok', timeout => -5) $$, '22023',
  null, 'a negative timeout raises invalid_parameter_value');

-- TEST: on_timeout is one of the four modes
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'ok', on_timeout => 'retry') $$, '22023',
  'add_wait: on_timeout must be fail, skip, skip-cascade or continue (got ''retry'')',
  'an unknown on_timeout raises invalid_parameter_value');
select throws_ok($$ select pgflow.add_wait('approval', 'approved', 'ok', on_timeout => null) $$, '22023',
  null, 'a NULL on_timeout raises invalid_parameter_value');

-- TEST: nothing was written; NULL runs_handler means true
select is((select count(*)::int from pgflow.step_waits), 0, 'no step_waits row was written');
select is((select runs_handler from pgflow.add_wait('approval', 'approved', 'ok', runs_handler => null)),
  true, 'a NULL runs_handler is stored as true');

select * from finish();
rollback;
