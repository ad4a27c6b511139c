begin;
select plan(14);

-- TEST: anything outside [a-zA-Z0-9_] makes the slug invalid
select is(pgflow.is_valid_slug('my-flow'), false, 'a hyphen is invalid');
select is(pgflow.is_valid_slug('my flow'), false, 'an inner space is invalid');
select is(pgflow.is_valid_slug(' flow'), false, 'a leading space is invalid');
select is(pgflow.is_valid_slug('flow '), false, 'a trailing space is invalid');
select is(pgflow.is_valid_slug('my.flow'), false, 'a dot is invalid');
select is(pgflow.is_valid_slug('it''s'), false, 'a single quote is invalid');
select is(pgflow.is_valid_slug('say"hi"'), false, 'a double quote is invalid');
select is(pgflow.is_valid_slug('a;drop table x'), false, 'a semicolon is invalid');
select is(pgflow.is_valid_slug('a$b'), false, 'a dollar sign is invalid');
select is(pgflow.is_valid_slug('a/b'), false, 'a slash is invalid');
select is(pgflow.is_valid_slug('café'), false, 'a non-ASCII letter is invalid');
select is(pgflow.is_valid_slug(E'flow\n'), false, 'a trailing newline is invalid');
select is(pgflow.is_valid_slug(E'a\tb'), false, 'a tab is invalid');
select is(pgflow.is_valid_slug('*'), false, 'a wildcard is invalid');

select * from finish();
rollback;
