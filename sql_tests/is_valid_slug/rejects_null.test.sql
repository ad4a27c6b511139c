begin;
select plan(1);

-- TEST: NULL is not a slug, and the answer is false (not NULL)
select is(pgflow.is_valid_slug(null), false, 'is_valid_slug(NULL) returns false, not NULL');

select * from finish();
rollback;
