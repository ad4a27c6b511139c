begin;
select plan(8);
select pgflow_tests.reset_db();

-- SETUP: a started run of sequential (first queued)
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset

create function pg_temp.state() returns jsonb language sql as $$
  select jsonb_build_object(
    'runs', (select jsonb_agg(to_jsonb(r) order by r.run_id) from pgflow.runs as r),
    'steps', (select jsonb_agg(to_jsonb(s) order by s.run_id, s.step_slug) from pgflow.step_states as s),
    'tasks', (select jsonb_agg(to_jsonb(t) order by t.run_id, t.step_slug, t.task_index) from pgflow.step_tasks as t),
    'events', (select jsonb_agg(to_jsonb(e) order by e.id) from pgflow.run_events as e),
    'queue', (select jsonb_agg(q.msg_id order by q.msg_id) from pgmq.q_sequential as q),
    'archive', (select jsonb_agg(a.msg_id order by a.msg_id) from pgmq.a_sequential as a));
$$;
create temp table before as select pg_temp.state() as s;

-- TEST: an unknown run raises no_data_found (P0002); so does a NULL run_id
select throws_ok(
  $$select * from pgflow.cancel_run('00000000-0000-0000-0000-00000000abcd', 'alice', null)$$,
  'P0002', 'cancel_run: run 00000000-0000-0000-0000-00000000abcd does not exist',
  'an unknown run raises no_data_found'
);
select throws_ok(
  $$select * from pgflow.cancel_run(null, 'alice', null)$$,
  'P0002', 'cancel_run: run NULL does not exist',
  'a NULL run_id raises no_data_found'
);

-- TEST: a NULL, empty or blank actor raises invalid_parameter_value (22023)
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, null, 'why')$$, :'run'),
  '22023', 'cancel_run: actor must name who acts (got NULL)',
  'a NULL actor raises invalid_parameter_value'
);
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, '', 'why')$$, :'run'),
  '22023', 'cancel_run: actor must name who acts (got '''')',
  'an empty actor raises invalid_parameter_value'
);
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, '   ', 'why')$$, :'run'),
  '22023', 'cancel_run: actor must name who acts (got ''   '')',
  'a blank actor (spaces) raises invalid_parameter_value'
);

-- TEST: an expected_status that is not a run status raises invalid_parameter_value
select throws_ok(
  format($$select * from pgflow.cancel_run(%L, 'alice', null, 'running')$$, :'run'),
  '22023', 'cancel_run: expected_status ''running'' is not a run status',
  'expected_status running raises invalid_parameter_value'
);

-- TEST: nothing was written; the run can still be cancelled
select is(pg_temp.state(), (select s from before), 'runs, steps, tasks, events, queue and archive are unchanged');
select is(
  (select status from pgflow.cancel_run(:'run', 'alice', null)),
  'cancelled', 'the run is still started: a valid call cancels it');

select * from finish();
rollback;
