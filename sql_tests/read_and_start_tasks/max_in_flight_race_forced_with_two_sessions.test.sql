begin;
select plan(8);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and both claims commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('mif_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=mif_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('mif_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=mif_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('mif_a', 'set statement_timeout = 20000');
select dblink_exec('mif_b', 'set statement_timeout = 20000');

-- SETUP (committed): a root map with max_in_flight 2 over 5 elements; workers A and B
select dblink_exec('mif_a', $o$do $x$ begin
  perform pgflow.create_flow('race_mif');
  perform pgflow.add_step('race_mif', 'items', step_type => 'map', max_in_flight => 2);
  perform pgflow.start_flow('race_mif', '[0, 1, 2, 3, 4]'::jsonb);
  perform pgflow.register_worker('aaaaaaaa-0000-0000-0000-0000000000fa', 'race_mif', 'race');
  perform pgflow.register_worker('bbbbbbbb-0000-0000-0000-0000000000fb', 'race_mif', 'race');
end $x$ $o$);

-- TEST: session A claims two tasks inside an open transaction
select dblink_exec('mif_a', 'begin');
select results_eq(
  $$select * from dblink('mif_a', $q$select count(*) filter (where run_id is not null)
      from pgflow.read_and_start_tasks('race_mif', 'aaaaaaaa-0000-0000-0000-0000000000fa', 2, 30)$q$) as t (n bigint)$$,
  $$values (2::bigint)$$, 'session A (open transaction) claims two tasks');

-- TEST: session B reads the three other messages; its claim waits for the step's advisory lock
select dblink_send_query('mif_b', $q$select count(*) filter (where run_id is not null), count(*)
  from pgflow.read_and_start_tasks('race_mif', 'bbbbbbbb-0000-0000-0000-0000000000fb', 10, 30)$q$);
do $$
begin
  -- B is blocked on the lock A holds (a session state, not time)
  for i in 1 .. 400 loop
    exit when exists (select 1 from pg_stat_activity where application_name = 'mif_b'
                      and wait_event_type = 'Lock' and wait_event = 'advisory');
    perform pg_sleep(0.05);
  end loop;
end
$$;
select ok(exists (select 1 from pg_stat_activity where application_name = 'mif_b'
                  and wait_event_type = 'Lock' and wait_event = 'advisory'),
  'session B''s claim waits for the max_in_flight lock of the step');

-- TEST: A commits: B then sees both slots taken, claims nothing and holds the three it read
select dblink_exec('mif_a', 'commit');
select results_eq($$select * from dblink_get_result('mif_b') as t (claimed bigint, read bigint)$$,
  $$values (0::bigint, 3::bigint)$$, 'session B read three messages and claimed none');
select * from dblink_get_result('mif_b') as t (claimed bigint, read bigint);  -- (ends B's async query)
select is(pgflow_tests.task_statuses('race_mif', 'items'), '{"queued": 3, "started": 2}'::jsonb,
  'two tasks started in all, never more');
select is((select count(*) from pgflow.step_tasks where flow_slug = 'race_mif' and status = 'started'
           and last_worker_id = 'aaaaaaaa-0000-0000-0000-0000000000fa'), 2::bigint, 'both are session A''s');
-- (read through session B: a queue table this session read would keep the cleanup's
-- drop_queue waiting)
select results_eq(
  $$select * from dblink('mif_b', $q$select task_status, attempts_count, vt_seconds between 290 and 301
      from pgflow_tests.held_messages('race_mif', 'items')$q$) as t (task_status text, attempts_count int, hidden boolean)$$,
  $$values ('queued'::text, 0, true), ('queued', 0, true), ('queued', 0, true)$$,
  'session B held the three: queued, no attempt spent, vt about 300 s ahead');

-- TEST: one of A's tasks completes: one held message is released, B's next claim starts it
select dblink_exec('mif_a', $o$do $x$ begin
  perform pgflow.complete_task(t.run_id, t.step_slug, t.task_index, '"done"'::jsonb)
  from pgflow.step_tasks as t where t.flow_slug = 'race_mif' and t.status = 'started' order by t.task_index limit 1;
end $x$ $o$);
select results_eq(
  $$select * from dblink('mif_b', $q$select count(*) filter (where run_id is not null)
      from pgflow.read_and_start_tasks('race_mif', 'bbbbbbbb-0000-0000-0000-0000000000fb', 10, 30)$q$) as t (n bigint)$$,
  $$values (1::bigint)$$, 'after a completion session B claims exactly one task');
select is(pgflow_tests.task_statuses('race_mif', 'items'), '{"completed": 1, "queued": 2, "started": 2}'::jsonb,
  'two started again');

-- CLEANUP: the committed rows go (throttled_messages and workers too)
select dblink_exec('mif_a', $o$do $x$ begin
  perform pgflow.delete_flow_and_data('race_mif');
  delete from pgflow.throttled_messages where flow_slug = 'race_mif';
  delete from pgflow.workers where queue_name = 'race_mif';
end $x$ $o$);
select dblink_disconnect('mif_a');
select dblink_disconnect('mif_b');

select * from finish();
rollback;
