begin;
select plan(24);

-- Case B06 (a), (c), (d): edge cases of a map step fed by an array-producing step.
-- Flow map_chain: producer (single) -> mapper (map over producer output) -> reducer.

-- (a) SETUP: the producer returns [].
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('map_chain');
select run_id as run_a from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_a', 'producer', 0, '[]'::jsonb)
from pgflow_tests.read_and_start('map_chain', 1, 1);

-- TEST (a): the map completes at once with output [] and never gets a task or a message
select is(status, 'completed', '(a) mapper completed immediately')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'mapper';
select is(output, '[]'::jsonb, '(a) mapper output is []')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'mapper';
select is(initial_tasks, 0, '(a) mapper initial_tasks is 0')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'mapper';
select is(count(*)::int, 0, '(a) mapper has no tasks')
from pgflow.step_tasks where run_id = :'run_a' and step_slug = 'mapper';
select is(
  (select count(*)::int from pgmq.q_map_chain where message->>'step_slug' = 'mapper'), 0,
  '(a) no pgmq message for the mapper');
select is(status, 'started', '(a) reducer started')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'reducer';

-- TEST (a): the final step receives [] and the run completes
select is(input, '{"mapper": []}'::jsonb, '(a) reducer input holds mapper: []')
from pgflow_tests.read_and_start('map_chain', 1, 1);
select pgflow.complete_task(:'run_a', 'reducer', 0, '{"sum": 0}'::jsonb);
select is(status, 'completed', '(a) run completed') from pgflow.runs where run_id = :'run_a';
select is(output, '{"reducer": {"sum": 0}}'::jsonb, '(a) run output from the reducer')
from pgflow.runs where run_id = :'run_a';

-- (a') a root map over an empty run input completes inside start_flow
select pgflow_tests.setup_flow('root_map');
select is(status, 'completed', '(a) root map over [] completes inside start_flow')
from pgflow.start_flow('root_map', '[]'::jsonb);
select is(pgflow_tests.queue_count('root_map', 'q'), 0::bigint, '(a) no message for the empty root map');

-- (c) SETUP: the producer returns JSON null.
select run_id as run_c from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_c', 'producer', 0, 'null'::jsonb)
from pgflow_tests.read_and_start('map_chain', 1, 1);

-- TEST (c): a type violation fails the producer and the whole run
select is(status, 'failed', '(c) run failed (no hang)') from pgflow.runs where run_id = :'run_c';
select is(status || ': ' || error_message,
          'failed: [TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced null',
          '(c) producer step failed with a type-violation error')
from pgflow.step_states where run_id = :'run_c' and step_slug = 'producer';
select is(status || ': ' || error_message, 'failed: [TYPE_VIOLATION] Produced null instead of array',
          '(c) producer task failed with a type-violation error')
from pgflow.step_tasks where run_id = :'run_c' and step_slug = 'producer';
select is(status, 'created', '(c) mapper is neither skipped nor started')
from pgflow.step_states where run_id = :'run_c' and step_slug = 'mapper';

-- (c'') the producer reports SQL NULL (what a client sends for a missing result)
select run_id as run_n from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_n', 'producer', 0, null)
from pgflow_tests.read_and_start('map_chain', 1, 1);
select is(status, 'failed', '(c) SQL NULL output also fails the run') from pgflow.runs where run_id = :'run_n';
select is(status || ': ' || error_message, 'failed: [TYPE_VIOLATION] Produced null instead of array',
          '(c) SQL NULL output: task failed with a type-violation error')
from pgflow.step_tasks where run_id = :'run_n' and step_slug = 'producer';

-- (d) SETUP: the producer returns a string.
select run_id as run_d from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_d', 'producer', 0, '"abc"'::jsonb)
from pgflow_tests.read_and_start('map_chain', 1, 1);

-- TEST (d): same type violation for a string
select is(status, 'failed', '(d) run failed') from pgflow.runs where run_id = :'run_d';
select is(status || ': ' || error_message,
          'failed: [TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced string',
          '(d) producer step failed with a type-violation error')
from pgflow.step_states where run_id = :'run_d' and step_slug = 'producer';
select is(status || ': ' || error_message, 'failed: [TYPE_VIOLATION] Produced string instead of array',
          '(d) producer task failed with a type-violation error')
from pgflow.step_tasks where run_id = :'run_d' and step_slug = 'producer';
select is(pgflow_tests.queue_count('map_chain', 'q'), 0::bigint, '(c)/(d) no message left in the queue');

-- (c') retries and when_exhausted = skip do not turn a type violation into a retry or a skip
select pgflow.create_flow('b06_skip', max_attempts => 3);
select pgflow.add_step('b06_skip', 'producer', when_exhausted => 'skip');
select pgflow.add_step('b06_skip', 'mapper', array['producer'], step_type => 'map');
select run_id as run_s from pgflow.start_flow('b06_skip', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_s', 'producer', 0, 'null'::jsonb)
from pgflow_tests.read_and_start('b06_skip', 1, 1);
select is(status, 'failed', '(c) with retries and when_exhausted skip the run still fails')
from pgflow.runs where run_id = :'run_s';
select is(status, 'failed', '(c) the producer step is failed, not skipped')
from pgflow.step_states where run_id = :'run_s' and step_slug = 'producer';
select is(status, 'failed', '(c) the producer task is failed, not queued for a retry')
from pgflow.step_tasks where run_id = :'run_s' and step_slug = 'producer';

select * from finish();
rollback;
