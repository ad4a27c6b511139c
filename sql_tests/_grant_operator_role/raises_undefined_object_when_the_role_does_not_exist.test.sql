begin;
select plan(1);

-- SETUP: the role does not exist (dropped in this transaction only)
drop owned by pgflow_operator;
drop role pgflow_operator;

-- TEST: the call raises undefined_object, naming the role
select throws_ok('select pgflow._grant_operator_role()', '42704', 'role "pgflow_operator" does not exist',
  'undefined_object without the role');

select * from finish();
rollback;
