begin;
select plan(4);

select pgflow.create_flow('actors');
select pgflow.add_step('actors', 'only');
select run_id as run from pgflow.start_flow('actors', '{}') \gset
select count(*) as before from pgflow.run_events \gset

-- TEST: an actor with a control character (it would forge lines in pgflow events) or over 200
-- characters is refused with 22023, and nothing is written
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, E'alice\n2026-01-01 run:completed system', 'x')$$, :'run'),
  '22023', 'cancel_run: actor must be at most 200 characters without control characters',
  'a newline in the actor is refused'
);
select throws_ok(
  format($$select * from pgflow.pause_run(%L, repeat('a', 201), 'x')$$, :'run'),
  '22023', 'pause_run: actor must be at most 200 characters without control characters',
  'an actor of 201 characters is refused'
);
select is((select count(*) from pgflow.run_events), :before::bigint, 'nothing was written');

-- TEST: 200 characters are fine
select is((select changed from pgflow.pause_run(:'run', repeat('a', 200), 'x')), true,
  'an actor of 200 characters is accepted');

select * from finish();
rollback;
