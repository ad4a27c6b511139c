begin;
select plan(16);

-- SETUP: a run whose first task is started
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('sequential');
select run_id as run from pgflow.start_flow('sequential', '{}'::jsonb) \gset
select count(*) from pgflow_tests.start_task(:'run', 'first');
select pgflow_tests.row_counts() as counts_before \gset

-- TEST: a run input that is not JSON is rejected at the jsonb boundary, before start_flow runs
select throws_ok($$ select * from pgflow.start_flow('sequential', '{bad') $$, '22P02',
  'invalid input syntax for type json', 'truncated JSON is rejected');
select throws_ok($$ select * from pgflow.start_flow('sequential', '') $$, '22P02',
  'invalid input syntax for type json', 'an empty string is not JSON');
select throws_ok($$ select * from pgflow.start_flow('sequential', '{"a": NaN}') $$, '22P02',
  'invalid input syntax for type json', 'NaN (what Python''s json.dumps writes by default) is rejected');
select throws_ok($$ select * from pgflow.start_flow('sequential', 'Infinity') $$, '22P02',
  'invalid input syntax for type json', 'Infinity is rejected');
select throws_ok($$ select * from pgflow.start_flow('sequential', '{"a": "\ud800"}') $$, '22P02',
  'invalid input syntax for type json', 'a lone UTF-16 surrogate is rejected');
select throws_ok($$ select * from pgflow.start_flow('sequential', '{"a": "\u0000"}') $$, '22P05',
  'unsupported Unicode escape sequence', 'a \u0000 escape (valid JSON, not storable in jsonb) is rejected');
select throws_ok($$ select pgflow.start_flow_with_states('sequential', '{bad') $$, '22P02',
  'invalid input syntax for type json', 'start_flow_with_states rejects it too');

-- TEST: a task output that is not JSON is rejected the same way
select throws_ok(format($$ select * from pgflow.complete_task(%L, 'first', 0, '{bad') $$, :'run'),
  '22P02', 'invalid input syntax for type json', 'complete_task rejects truncated JSON');
select throws_ok(format($$ select * from pgflow.complete_task(%L, 'first', 0, 'NaN') $$, :'run'),
  '22P02', 'invalid input syntax for type json', 'complete_task rejects NaN');
select throws_ok(format($$ select * from pgflow.complete_task(%L, 'first', 0, '"a\u0000b"') $$, :'run'),
  '22P05', 'unsupported Unicode escape sequence', 'complete_task rejects \u0000');

-- TEST: an output that is a JSON document inside a string stays a string (no double decoding)
select is(
  (select output from pgflow.complete_task(:'run', 'first', 0, to_jsonb('{bad'::text))),
  '"{bad"'::jsonb, 'a JSON string holding broken JSON is just a string');

-- TEST: nothing else was written by the rejected calls
select is(pgflow_tests.row_counts() - 'step_tasks', (:'counts_before'::jsonb) - 'step_tasks',
  'no run, step state, flow or queue was added');
select is((select count(*)::int from pgflow.runs), 1, 'still exactly one run');
select is((select status from pgflow.step_tasks where run_id = :'run' and step_slug = 'first'), 'completed',
  'the task completed only with the valid output');
select is((select attempts_count from pgflow.step_tasks where run_id = :'run' and step_slug = 'first'), 1,
  'after a single attempt');
select is((select count(*)::int from pgflow.step_tasks where run_id = :'run'), 2,
  'the next step was queued once');

select * from finish();
rollback;
