begin;
select plan(6);
select pgflow_tests.reset_db();

-- SETUP: a one-step flow and the sequential flow (first -> second -> last), both
-- max_attempts 1; three runs of "one" and two of "sequential", every root task claimed by
-- worker 1111...
select pgflow.create_flow('one', max_attempts => 1);
select pgflow.add_step('one', 'only');
select pgflow_tests.setup_flow('sequential');
select pgflow_tests.ensure_worker('one');
select pgflow_tests.ensure_worker('sequential');
select run_id as r1 from pgflow.start_flow('one', '{}'::jsonb) \gset
select run_id as r2 from pgflow.start_flow('one', '{}'::jsonb) \gset
select run_id as r3 from pgflow.start_flow('one', '{}'::jsonb) \gset
select run_id as s1 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select run_id as s2 from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow.read_and_start_tasks('one', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select count(*) from pgflow.read_and_start_tasks('sequential', '11111111-1111-1111-1111-111111111111', 10, 30, null);
select max(id) as last_id from pgflow.run_events \gset

-- TEST: a group commit of three runs completing in one complete_tasks call: one
-- step:completed and one run:completed per run, by the worker, and nothing else
select count(*) from pgflow.complete_tasks(array[:'r1', :'r2', :'r3']::uuid[], array['only', 'only', 'only'],
                                           array[0, 0, 0], array['1', '2', '3']::jsonb[]);
select bag_eq(
  format($$select run_id, step_slug, event, actor from pgflow.run_events where id > %s$$, :last_id),
  format($$values (%1$L::uuid, 'only'::text, 'step:completed'::text, 'worker:11111111-1111-1111-1111-111111111111'::text),
                  (%2$L, 'only', 'step:completed', 'worker:11111111-1111-1111-1111-111111111111'),
                  (%3$L, 'only', 'step:completed', 'worker:11111111-1111-1111-1111-111111111111'),
                  (%1$L, null, 'run:completed', 'worker:11111111-1111-1111-1111-111111111111'),
                  (%2$L, null, 'run:completed', 'worker:11111111-1111-1111-1111-111111111111'),
                  (%3$L, null, 'run:completed', 'worker:11111111-1111-1111-1111-111111111111')$$,
         :'r1', :'r2', :'r3'),
  '3 step:completed and 3 run:completed, one per run'
);
select is((select count(*)::int from pgflow.run_events where id > :last_id), 6, 'exactly six rows');

-- TEST: a batch of failures of two runs in one fail_tasks call: per run one task:failed,
-- step:failed, run:failed and one step:cancelled per unfinished step, nothing twice
select max(id) as last_id from pgflow.run_events \gset
select count(*) from pgflow.fail_tasks(array[:'s1', :'s2']::uuid[], array['first', 'first'], array[0, 0],
                                       array['boom', 'bang']);
select bag_eq(
  format($$select run_id, step_slug, event from pgflow.run_events where id > %s$$, :last_id),
  format($$values (%1$L::uuid, 'first'::text, 'task:failed'::text), (%1$L, 'first', 'step:failed'),
                  (%1$L, null, 'run:failed'), (%1$L, 'second', 'step:cancelled'), (%1$L, 'last', 'step:cancelled'),
                  (%2$L, 'first', 'task:failed'), (%2$L, 'first', 'step:failed'),
                  (%2$L, null, 'run:failed'), (%2$L, 'second', 'step:cancelled'), (%2$L, 'last', 'step:cancelled')$$,
         :'s1', :'s2'),
  'per run: task:failed, step:failed, run:failed, step:cancelled x2'
);
select is((select count(*)::int from pgflow.run_events where id > :last_id), 10, 'exactly ten rows');

-- TEST: retry_run of one of them: each step it resets once, the run once, the root it
-- starts again once
select max(id) as last_id from pgflow.run_events \gset
select count(*) from pgflow.retry_run(:'s1', 'carol', null);
select bag_eq(
  format($$select run_id, step_slug, event from pgflow.run_events where id > %s$$, :last_id),
  format($$values (%1$L::uuid, 'first'::text, 'step:reset'::text), (%1$L, 'second', 'step:reset'),
                  (%1$L, 'last', 'step:reset'), (%1$L, null, 'run:retried'), (%1$L, 'first', 'step:started')$$,
         :'s1'),
  'step:reset x3, run:retried, step:started of first'
);
select is((select count(*)::int from pgflow.run_events where id > :last_id), 5, 'exactly five rows');

select * from finish();
rollback;
