begin;
select plan(10);
select pgflow_tests.reset_db();

-- SETUP: flow lim (limit 2, queue), flow rej (limit 1, reject), flow free (no limit)
select pgflow_tests.limited_flow('lim', 2, 'queue');
select pgflow_tests.limited_flow('rej', 1, 'reject');
select pgflow_tests.limited_flow('free', null);
create function pg_temp.flow(slug text) returns pgflow.flows language sql as
  $$select f from pgflow.flows as f where f.flow_slug = slug$$;

-- TEST: no key, or a flow without limit: started
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('lim'), null, true), 'started', 'no key: started');
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('free'), 'ck', false), 'started', 'no limit: started');

-- TEST: fewer holders than the limit and no queue: started
select pgflow_tests.keyed_run('lim', 'ck', '00000000-0000-0000-0000-0000000000a1');
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('lim'), 'ck', true), 'started', '1 of 2 held: started');

-- TEST: every slot held: queued when the flow queues and the caller may queue
select pgflow_tests.keyed_run('lim', 'ck', '00000000-0000-0000-0000-0000000000a2');
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('lim'), 'ck', true), 'queued', '2 of 2 held: queued');

-- TEST: every slot held and the caller may not queue: raises, with the caller's name
select throws_ok(
  $$select pgflow._take_concurrency_slot('my_verb', pg_temp.flow('lim'), 'ck', false)$$,
  '53400',
  'my_verb: concurrency limit of flow ''lim'' for key ''ck'' is reached (2 of 2): held by run '
    || '00000000-0000-0000-0000-0000000000a1, 00000000-0000-0000-0000-0000000000a2',
  'may_queue false: 53400 naming the caller and the holders'
);

-- TEST: a paused holder counts; a finished one does not
select pgflow.pause_run('00000000-0000-0000-0000-0000000000a1', 'tester', null);
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('lim'), 'ck', true), 'queued', 'a paused holder still counts');
select pgflow_tests.end_run('00000000-0000-0000-0000-0000000000a2', 'completed');
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('lim'), 'ck', true), 'started', 'a completed run frees its slot');

-- TEST: a free slot goes to the runs already queued first: a newcomer queues behind them
select pgflow_tests.keyed_run('lim', 'ck');  -- takes the free slot
select pgflow_tests.keyed_run('lim', 'ck');  -- queued
update pgflow.runs set status = 'completed', completed_at = now(), remaining_steps = 0
where run_id = '00000000-0000-0000-0000-0000000000a1';  -- (a slot freed without a release)
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('lim'), 'ck', true), 'queued',
  'with a free slot but a run already queued, a newcomer queues');

-- TEST: on_limit reject raises even when the caller may queue
select pgflow_tests.keyed_run('rej', 'ck', '00000000-0000-0000-0000-0000000000b1');
select throws_ok(
  $$select pgflow._take_concurrency_slot('start_flow', pg_temp.flow('rej'), 'ck', true)$$,
  '53400',
  'start_flow: concurrency limit of flow ''rej'' for key ''ck'' is reached (1 of 1): held by run '
    || '00000000-0000-0000-0000-0000000000b1',
  'on_limit reject: 53400'
);
select is(pgflow._take_concurrency_slot('t', pg_temp.flow('rej'), 'other', true), 'started', 'another key: started');

select * from finish();
rollback;
