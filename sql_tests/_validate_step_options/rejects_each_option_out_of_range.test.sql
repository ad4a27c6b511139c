begin;
select plan(7);

-- TEST: valid options (and NULLs, inherited from the flow) pass
select lives_ok(
  $$select pgflow._validate_step_options('s', 3, 0, 1, 0, '{"a": 1}', null, 'skip', 'fail')$$,
  'valid options pass');
select lives_ok(
  $$select pgflow._validate_step_options('s', null, null, null, null, null, null, 'fail', 'skip-cascade')$$,
  'NULL numeric options and patterns pass');

-- TEST: each option out of range raises its own error
select throws_ok(
  $$select pgflow._validate_step_options('s', null, null, 0, null, null, null, 'skip', 'fail')$$,
  '23514', null, 'timeout 0 raises check_violation');
select throws_ok(
  $$select pgflow._validate_step_options('s', -1, null, null, null, null, null, 'skip', 'fail')$$,
  '23514', null, 'max_attempts -1 raises check_violation');
select throws_ok(
  $$select pgflow._validate_step_options('s', null, null, null, null, null, null, 'maybe', 'fail')$$,
  '23514', 'Invalid when_unmet ''maybe'' for step ''s'' (expected fail, skip or skip-cascade)',
  'an unknown when_unmet raises');
select throws_ok(
  $$select pgflow._validate_step_options('s', null, null, null, null, null, null, 'skip', null)$$,
  '23514', 'Invalid when_exhausted NULL for step ''s'' (expected fail, skip or skip-cascade)',
  'a NULL when_exhausted raises');
select throws_ok(
  $$select pgflow._validate_step_options('s', null, null, null, null, '[1]', null, 'skip', 'fail')$$,
  '23514', 'required_input_pattern of step ''s'' must be a JSON object (got array)',
  'a pattern that is not an object raises');

select * from finish();
rollback;
