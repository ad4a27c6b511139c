begin;
select plan(3);
select pgflow_tests.reset_db();
select pgflow_tests.create_realtime_stub();

-- SETUP: two events for one run id (the run need not exist)
select pgflow._broadcast('00000000-0000-0000-0000-0000000000a1', 'step:first:completed', '{"k": 1}'::jsonb);
select pgflow._broadcast('00000000-0000-0000-0000-0000000000a1', 'run:completed', '{"k": 2}'::jsonb);

-- TEST: realtime.send got payload, event, topic pgflow:run:<run_id> and private = false
select results_eq(
  $$select payload, event, topic, private from realtime.messages order by id$$,
  $$values ('{"k": 1}'::jsonb, 'step:first:completed'::text,
            'pgflow:run:00000000-0000-0000-0000-0000000000a1'::text, false),
           ('{"k": 2}'::jsonb, 'run:completed'::text,
            'pgflow:run:00000000-0000-0000-0000-0000000000a1'::text, false)$$,
  'one public event per call, on topic pgflow:run:<run_id>, in call order'
);

-- TEST: the topic is per run
select pgflow._broadcast('00000000-0000-0000-0000-0000000000b2', 'run:failed', '{}'::jsonb);
select is(
  pgflow_tests.run_events('00000000-0000-0000-0000-0000000000b2'),
  array['run:failed'],
  'an event for another run goes to that run''s topic only'
);
select is(
  pgflow_tests.run_events('00000000-0000-0000-0000-0000000000a1'),
  array['step:first:completed', 'run:completed'],
  'the first run''s topic is unchanged'
);

select * from finish();
rollback;
