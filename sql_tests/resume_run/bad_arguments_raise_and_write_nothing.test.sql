begin;
select plan(7);
select pgflow_tests.reset_db();

-- SETUP: a paused run of sequential (first parked)
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow.pause_run(:'run', 'alice', null);

create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'runs', (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
    'events', (select jsonb_agg(to_jsonb(e) order by e.id) from pgflow.run_events as e),
    'queue', (select jsonb_agg(q.msg_id order by q.msg_id) from pgmq.q_sequential as q),
    'archive', (select jsonb_agg(a.msg_id order by a.msg_id) from pgmq.a_sequential as a));
$$;
create temp table before as select pg_temp.state() as s;

-- TEST: an unknown run raises no_data_found (P0002)
select throws_ok(
  $$select * from pgflow.resume_run('00000000-0000-0000-0000-00000000abcd', 'alice', null)$$,
  'P0002', 'resume_run: run 00000000-0000-0000-0000-00000000abcd does not exist',
  'an unknown run raises no_data_found'
);

-- TEST: a NULL, empty or blank actor raises invalid_parameter_value (22023)
select throws_ok(
  format($$select * from pgflow.resume_run(%L, null, 'why')$$, :'run'),
  '22023', 'resume_run: actor must name who acts (got NULL)',
  'a NULL actor raises invalid_parameter_value'
);
select throws_ok(
  format($$select * from pgflow.resume_run(%L, '', 'why')$$, :'run'),
  '22023', 'resume_run: actor must name who acts (got '''')',
  'an empty actor raises invalid_parameter_value'
);
select throws_ok(
  format($$select * from pgflow.resume_run(%L, ' ', 'why')$$, :'run'),
  '22023', 'resume_run: actor must name who acts (got '' '')',
  'a blank actor raises invalid_parameter_value'
);

-- TEST: an expected_status that is not a run status raises invalid_parameter_value
select throws_ok(
  format($$select * from pgflow.resume_run(%L, 'alice', null, 'created')$$, :'run'),
  '22023', 'resume_run: expected_status ''created'' is not a run status',
  'expected_status created (a step status) raises invalid_parameter_value'
);

-- TEST: nothing was written (no message resent); the run can still be resumed
select is(pg_temp.state(), (select s from before), 'runs, tasks, events, queue and archive are unchanged');
select is((select status from pgflow.resume_run(:'run', 'alice', null)), 'started', 'a valid call resumes the run');

select * from finish();
rollback;
