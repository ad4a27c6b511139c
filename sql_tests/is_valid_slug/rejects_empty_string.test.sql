begin;
select plan(1);

-- TEST: the empty string is not a slug
select is(pgflow.is_valid_slug(''), false, 'the empty string is not a valid slug');

select * from finish();
rollback;
