begin;
select plan(10);

-- TEST: upstream's constraint names (clients and upstream tests refer to them)
select results_eq(
  $$ select conname::text collate "default" from pg_constraint
     where conrelid = 'pgflow.flows'::regclass and contype = 'c'
       and conname in ('slug_is_valid', 'opt_max_attempts_is_nonnegative',
                       'opt_base_delay_is_nonnegative', 'opt_timeout_is_positive')
     order by conname $$,
  $$ values ('opt_base_delay_is_nonnegative'), ('opt_max_attempts_is_nonnegative'),
            ('opt_timeout_is_positive'), ('slug_is_valid') $$,
  'flows has the checks slug_is_valid, opt_max_attempts_is_nonnegative, opt_base_delay_is_nonnegative, opt_timeout_is_positive');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.steps'::regclass and conname = 'steps_pkey'),
  'p', 'the steps primary key is named steps_pkey');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.deps'::regclass and conname = 'deps_pkey'),
  'p', 'the deps primary key is named deps_pkey');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.step_tasks'::regclass and conname = 'step_tasks_pkey'),
  'p', 'the step_tasks primary key is named step_tasks_pkey');
select is(
  (select contype::text from pg_constraint where conrelid = 'pgflow.step_tasks'::regclass and conname = 'valid_status'),
  'c', 'step_tasks has a check named valid_status');

-- TEST: the named checks reject what upstream's reject
select throws_ok(
  $$ insert into pgflow.flows (flow_slug) values ('1bad') $$,
  '23514', 'new row for relation "flows" violates check constraint "slug_is_valid"',
  'an invalid flow slug violates slug_is_valid');
select throws_ok(
  $$ insert into pgflow.flows (flow_slug, opt_max_attempts) values ('ok_flow', -1) $$,
  '23514', 'new row for relation "flows" violates check constraint "opt_max_attempts_is_nonnegative"',
  'a negative max_attempts violates opt_max_attempts_is_nonnegative');
select throws_ok(
  $$ insert into pgflow.flows (flow_slug, opt_base_delay) values ('ok_flow', -1) $$,
  '23514', 'new row for relation "flows" violates check constraint "opt_base_delay_is_nonnegative"',
  'a negative base_delay violates opt_base_delay_is_nonnegative');
select throws_ok(
  $$ insert into pgflow.flows (flow_slug, opt_timeout) values ('ok_flow', 0) $$,
  '23514', 'new row for relation "flows" violates check constraint "opt_timeout_is_positive"',
  'a zero timeout violates opt_timeout_is_positive');
select throws_like(
  $$ insert into pgflow.deps (flow_slug, dep_slug, step_slug) values ('f', 'a', 'a') $$,
  '%check constraint%',
  'a self edge in deps violates a check constraint (dep_slug <> step_slug)');

select * from finish();
rollback;
