begin;
select plan(12);

-- TEST: letters, digits and underscores, starting with a letter or underscore
select ok(pgflow.is_valid_slug('a'), 'a single letter is a valid slug');
select ok(pgflow.is_valid_slug('_'), 'a single underscore is a valid slug');
select ok(pgflow.is_valid_slug('Z'), 'an upper-case letter is a valid slug');
select ok(pgflow.is_valid_slug('flow_1'), 'letters, digits and underscores are valid');
select ok(pgflow.is_valid_slug('_private'), 'a leading underscore is valid');
select ok(pgflow.is_valid_slug('CamelCase9'), 'mixed case with a trailing digit is valid');
select ok(pgflow.is_valid_slug('a1_2_3'), 'digits after the first character are valid');

-- TEST: only the exact word run is reserved
select ok(pgflow.is_valid_slug('Run'), 'Run (capitalised) is not the reserved word');
select ok(pgflow.is_valid_slug('runs'), 'runs is not the reserved word');
select ok(pgflow.is_valid_slug('run_'), 'run_ is not the reserved word');
select ok(pgflow.is_valid_slug('_run'), '_run is not the reserved word');

-- TEST: the longest allowed slug
select ok(pgflow.is_valid_slug(repeat('a', 128)), 'a slug of exactly 128 characters is valid');

select * from finish();
rollback;
