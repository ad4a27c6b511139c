begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: an empty database (no run exists)

-- TEST: an unknown run has nothing to cascade
select is(
  pgflow.cascade_complete_taskless_steps('00000000-0000-0000-0000-000000000000'::uuid),
  0,
  'an unknown run_id completes nothing and returns 0'
);

select * from finish();
rollback;
