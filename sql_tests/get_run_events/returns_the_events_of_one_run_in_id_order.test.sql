begin;
select plan(3);
select pgflow_tests.reset_db();

-- SETUP: two runs of the sequential flow whose events interleave; two more events of the
-- first run written last, with ids in reverse physical order (hi + 1 stored before hi)
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as other from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select pgflow_tests.start_and_complete_task(:'run', 'first');
select pgflow_tests.start_and_complete_task(:'other', 'first');
select max(id) + 1000 as hi from pgflow.run_events \gset
insert into pgflow.run_events (id, run_id, event, actor) overriding system value
values (:hi + 1, :'run', 'run:paused', 'late');
insert into pgflow.run_events (id, run_id, event, actor) overriding system value
values (:hi, :'run', 'run:paused', 'early');

-- TEST: the run's rows only, all of them, in id order
select results_eq(
  format($$select id, event, step_slug, actor from pgflow.get_run_events(%L)$$, :'run'),
  format($$select id, event, step_slug, actor from pgflow.run_events where run_id = %L order by id$$, :'run'),
  'every row of the run, ordered by id'
);
select results_eq(
  format($$select event, step_slug, actor from pgflow.get_run_events(%L)$$, :'run'),
  $$values ('run:started'::text, null::text, 'app'::text), ('step:started', 'first', 'app'),
           ('step:completed', 'first', 'worker:11111111-1111-1111-1111-111111111111'),
           ('step:started', 'second', 'worker:11111111-1111-1111-1111-111111111111'),
           ('run:paused', null, 'early'), ('run:paused', null, 'late')$$,
  'run:started, first started and completed, second started, then id hi (early) before hi + 1 (late)'
);
select is(
  (select count(*)::int from pgflow.get_run_events(:'run') where run_id <> :'run'), 0,
  'no row of the other run');

select * from finish();
rollback;
