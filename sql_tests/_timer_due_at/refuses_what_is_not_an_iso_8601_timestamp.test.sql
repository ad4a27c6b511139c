begin;
select plan(16);
select pgflow_tests.reset_db();

-- SETUP: a run whose input holds the values to read.
select pgflow.create_flow('due', max_attempts => 1);
select pgflow.add_step('due', 'a');
select run_id from pgflow.start_flow('due', '{"v": [
  1700000000, null, {"at": "2030-01-02"}, ["2030-01-02"], true,
  "tomorrow", "now", "infinity", "", "1700000000", "2030-1-2", "2030/01/02", "Jan 2 2030",
  "2030-02-30", "2030-13-01T00:00:00Z"]}'::jsonb) \gset
create function pg_temp.read(path text) returns text language sql as $$
  select coalesce(d.due_at::text, '') || '|' || coalesce(d.error_message, '')
  from pgflow.runs as r, pgflow._timer_due_at(r.run_id, path) as d;
$$;

-- TEST: what is not a JSON string: "not an ISO 8601 timestamp (got <what was there>)"
select is(pg_temp.read('input.missing'), '|Timer: input.missing is not an ISO 8601 timestamp (got nothing)', 'a missing key');
select is(pg_temp.read('input.v.0'), '|Timer: input.v.0 is not an ISO 8601 timestamp (got 1700000000)', 'a number');
select is(pg_temp.read('input.v.1'), '|Timer: input.v.1 is not an ISO 8601 timestamp (got null)', 'JSON null');
select is(pg_temp.read('input.v.2'), '|Timer: input.v.2 is not an ISO 8601 timestamp (got {"at": "2030-01-02"})', 'an object');
select is(pg_temp.read('input.v.3'), '|Timer: input.v.3 is not an ISO 8601 timestamp (got ["2030-01-02"])', 'an array');
select is(pg_temp.read('input.v.4'), '|Timer: input.v.4 is not an ISO 8601 timestamp (got true)', 'a boolean');

-- TEST: words and other formats PostgreSQL would read are refused
select is(pg_temp.read('input.v.5'), '|Timer: input.v.5 is not an ISO 8601 timestamp (got "tomorrow")', '''tomorrow''');
select is(pg_temp.read('input.v.6'), '|Timer: input.v.6 is not an ISO 8601 timestamp (got "now")', '''now''');
select is(pg_temp.read('input.v.7'), '|Timer: input.v.7 is not an ISO 8601 timestamp (got "infinity")', '''infinity''');
select is(pg_temp.read('input.v.8'), '|Timer: input.v.8 is not an ISO 8601 timestamp (got "")', 'an empty string');
select is(pg_temp.read('input.v.9'), '|Timer: input.v.9 is not an ISO 8601 timestamp (got "1700000000")', 'epoch seconds as text');
select is(pg_temp.read('input.v.10'), '|Timer: input.v.10 is not an ISO 8601 timestamp (got "2030-1-2")', 'unpadded month and day');
select is(pg_temp.read('input.v.11'), '|Timer: input.v.11 is not an ISO 8601 timestamp (got "2030/01/02")', 'slashes');
select is(pg_temp.read('input.v.12'), '|Timer: input.v.12 is not an ISO 8601 timestamp (got "Jan 2 2030")', 'a month name');

-- TEST: the right shape but an impossible date or offset: "not a valid timestamp", with why
select alike(pg_temp.read('input.v.13'), '|Timer: input.v.13 is not a valid timestamp (got "2030-02-30"): %out of range%',
  'February 30th');
select alike(pg_temp.read('input.v.14'), '|Timer: input.v.14 is not a valid timestamp (got "2030-13-01T00:00:00Z"): %out of range%',
  'month 13');

select * from finish();
rollback;
