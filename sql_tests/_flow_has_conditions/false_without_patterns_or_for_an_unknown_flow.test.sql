begin;
select plan(4);
select pgflow_tests.reset_db();

-- SETUP: a flow without any pattern
select pgflow_tests.setup_flow('diamond');

-- TEST: no pattern, no condition
select is(pgflow._flow_has_conditions('diamond'), false, 'a flow without patterns has no conditions');

-- TEST: unknown or NULL flow: false, never an error
select is(pgflow._flow_has_conditions('no_such_flow'), false, 'false for an unknown flow');
select is(pgflow._flow_has_conditions(null), false, 'false for a NULL flow slug');

-- TEST: it writes nothing
select is(
  (select provolatile from pg_proc where oid = 'pgflow._flow_has_conditions(text)'::regprocedure),
  's'::"char",
  '_flow_has_conditions is stable (reads only)'
);

select * from finish();
rollback;
