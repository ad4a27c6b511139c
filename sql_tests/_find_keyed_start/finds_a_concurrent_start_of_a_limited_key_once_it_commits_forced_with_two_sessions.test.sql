begin;
select plan(6);
-- Two more sessions through dblink (this one stays in its transaction and only looks): the
-- race needs committed rows, so the setup and the starts commit, and the end deletes them.
create extension if not exists dblink;
select dblink_connect('find_a', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=find_a',
  current_setting('port'), current_database(), current_user));
select dblink_connect('find_b', format('host=127.0.0.1 port=%s dbname=%s user=%s application_name=find_b',
  current_setting('port'), current_database(), current_user));
-- (a session that would wait on the other's lock fails the test after 20 s, never hangs)
select dblink_exec('find_a', 'set statement_timeout = 20000');
select dblink_exec('find_b', 'set statement_timeout = 20000');

-- Waits until session find_b is blocked on a lock (a session state, not time).
create function pg_temp.b_waits_for_a_lock() returns boolean language plpgsql as $$
begin
  for i in 1 .. 400 loop
    if exists (select 1 from pg_stat_activity where application_name = 'find_b' and wait_event_type = 'Lock') then
      return true;
    end if;
    perform pg_sleep(0.05);
  end loop;
  return false;
end;
$$;

-- SETUP (committed): flow findks, at most 2 runs per concurrency key
select dblink_exec('find_a', $o$do $x$ begin
  perform pgflow.create_flow('findks', concurrency_limit => 2);
  perform pgflow.add_step('findks', 'work');
end $x$ $o$);

-- TEST: A starts with idempotency key K and concurrency key ck in an open transaction; B looks
-- K up with ck: it waits for A's key lock, and once A commits it finds A's run
select dblink_exec('find_a', 'begin');
select run_id as a_run from dblink('find_a',
  $$select run_id from pgflow.start_flow('findks', '{}', idempotency_key => 'K', concurrency_key => 'ck')$$)
  as t (run_id uuid) \gset
select dblink_send_query('find_b',
  $$select pgflow._find_keyed_start(f, 'K', 'ck') from pgflow.flows as f where f.flow_slug = 'findks'$$);
select ok(pg_temp.b_waits_for_a_lock(), 'B waits for A''s uncommitted start of key ck');
select is(dblink_is_busy('find_b'), 1, 'B has not returned while A is open');
select dblink_exec('find_a', 'commit');
select is((select run_id from dblink_get_result('find_b') as t (run_id uuid)), :'a_run'::uuid,
  'after A commits, B finds A''s run');
select dblink_get_result('find_b');  -- (end of B's result set)

-- TEST: without a concurrency key nothing is locked: B does not wait, and an uncommitted
-- start is not found
select dblink_exec('find_a', 'begin');
select run_id as a_run2 from dblink('find_a',
  $$select run_id from pgflow.start_flow('findks', '{}', idempotency_key => 'K2')$$) as t (run_id uuid) \gset
select dblink_exec('find_b', 'set lock_timeout = 2000');
select is(
  (select run_id from dblink('find_b',
     $$select pgflow._find_keyed_start(f, 'K2', null) from pgflow.flows as f where f.flow_slug = 'findks'$$)
     as t (run_id uuid)),
  null::uuid, 'no concurrency key: B returns NULL at once while A is open');
select dblink_exec('find_a', 'commit');
select is(
  (select run_id from dblink('find_b',
     $$select pgflow._find_keyed_start(f, 'K2', null) from pgflow.flows as f where f.flow_slug = 'findks'$$)
     as t (run_id uuid)),
  :'a_run2'::uuid, 'once A committed, B finds it');

-- TEST: the committed state holds one run per key
select is(
  (select n from dblink('find_b', $$select count(*)::int from pgflow.runs where flow_slug = 'findks'$$) as t (n int)),
  2, 'two runs were committed');

-- CLEANUP: the committed rows go
select dblink_exec('find_a', $o$do $x$ begin perform pgflow.delete_flow_and_data('findks'); end $x$ $o$);
select dblink_disconnect('find_a');
select dblink_disconnect('find_b');

select * from finish();
rollback;
