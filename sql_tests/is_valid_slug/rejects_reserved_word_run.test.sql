begin;
select plan(1);

-- TEST: run is reserved (it would clash with the run object in client APIs)
select is(pgflow.is_valid_slug('run'), false, 'run is a reserved word and not a valid slug');

select * from finish();
rollback;
