begin;
select plan(1);

-- SETUP: the role does not exist (dropped in this transaction only)
drop owned by pgflow_client;
drop role pgflow_client;

-- TEST: the call raises undefined_object, naming the role
select throws_ok('select pgflow._grant_client_role()', '42704', 'role "pgflow_client" does not exist',
  'undefined_object without the role');

select * from finish();
rollback;
