begin;
select plan(1);
select pgflow_tests.reset_db();

-- SETUP: an empty database (no run exists)

-- TEST: an unknown run is an error
select throws_like(
  $$select pgflow._cascade_force_skip_steps('00000000-0000-0000-0000-000000000000'::uuid, 'x', 'condition_unmet')$$,
  '%Run not found%',
  'raises ''Run not found'' for an unknown run_id'
);

select * from finish();
rollback;
