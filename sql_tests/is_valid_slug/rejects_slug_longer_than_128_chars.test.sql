begin;
select plan(2);

-- TEST: 128 characters are the limit
select is(pgflow.is_valid_slug(repeat('a', 129)), false, 'a slug of 129 characters is invalid');
select is(pgflow.is_valid_slug(repeat('a', 1000)), false, 'a slug of 1000 characters is invalid');

select * from finish();
rollback;
