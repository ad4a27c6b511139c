begin;
select plan(24);

-- Edge cases of a map step fed by an array-producing step: the producer returns an empty
-- array, JSON null or SQL NULL, or a string.
-- Flow map_chain: producer (single) -> mapper (map over producer output) -> reducer.

-- (empty) SETUP: the producer returns [].
select pgflow_tests.reset_db();
select pgflow_tests.setup_flow('map_chain');
select run_id as run_a from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_a', 'producer', 0, '[]'::jsonb)
from pgflow_tests.read_and_start('map_chain', 1, 1);

-- TEST (empty): the map completes at once with output [] and never gets a task or a message
select is(status, 'completed', '(empty) mapper completed immediately')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'mapper';
select is(output, '[]'::jsonb, '(empty) mapper output is []')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'mapper';
select is(initial_tasks, 0, '(empty) mapper initial_tasks is 0')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'mapper';
select is(count(*)::int, 0, '(empty) mapper has no tasks')
from pgflow.step_tasks where run_id = :'run_a' and step_slug = 'mapper';
select is(
  (select count(*)::int from pgmq.q_map_chain where message->>'step_slug' = 'mapper'), 0,
  '(empty) no pgmq message for the mapper');
select is(status, 'started', '(empty) reducer started')
from pgflow.step_states where run_id = :'run_a' and step_slug = 'reducer';

-- TEST (empty): the final step receives [] and the run completes
select is(input, '{"mapper": []}'::jsonb, '(empty) reducer input holds mapper: []')
from pgflow_tests.read_and_start('map_chain', 1, 1);
select pgflow.complete_task(:'run_a', 'reducer', 0, '{"sum": 0}'::jsonb);
select is(status, 'completed', '(empty) run completed') from pgflow.runs where run_id = :'run_a';
select is(output, '{"reducer": {"sum": 0}}'::jsonb, '(empty) run output from the reducer')
from pgflow.runs where run_id = :'run_a';

-- (empty root map) a root map over an empty run input completes inside start_flow
select pgflow_tests.setup_flow('root_map');
select is(status, 'completed', '(empty) root map over [] completes inside start_flow')
from pgflow.start_flow('root_map', '[]'::jsonb);
select is(pgflow_tests.queue_count('root_map', 'q'), 0::bigint, '(empty) no message for the empty root map');

-- (null) SETUP: the producer returns JSON null.
select run_id as run_c from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_c', 'producer', 0, 'null'::jsonb)
from pgflow_tests.read_and_start('map_chain', 1, 1);

-- TEST (null): a type violation fails the producer and the whole run
select is(status, 'failed', '(null) run failed (no hang)') from pgflow.runs where run_id = :'run_c';
select is(status || ': ' || error_message,
          'failed: [TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced null',
          '(null) producer step failed with a type-violation error')
from pgflow.step_states where run_id = :'run_c' and step_slug = 'producer';
select is(status || ': ' || error_message, 'failed: [TYPE_VIOLATION] Produced null instead of array',
          '(null) producer task failed with a type-violation error')
from pgflow.step_tasks where run_id = :'run_c' and step_slug = 'producer';
select results_eq(
  format($$select status, started_at is null, skipped_at is null, cancelled_at is not distinct from now()
           from pgflow.step_states where run_id = %L and step_slug = 'mapper'$$, :'run_c'),
  $$values ('cancelled'::text, true, true, true)$$,
  '(null) mapper is neither skipped nor started: the run failure cancels it (cancelled_at now)'
);

-- (SQL NULL) the producer reports SQL NULL (what a client sends for a missing result)
select run_id as run_n from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_n', 'producer', 0, null)
from pgflow_tests.read_and_start('map_chain', 1, 1);
select is(status, 'failed', '(null) SQL NULL output also fails the run') from pgflow.runs where run_id = :'run_n';
select is(status || ': ' || error_message, 'failed: [TYPE_VIOLATION] Produced null instead of array',
          '(null) SQL NULL output: task failed with a type-violation error')
from pgflow.step_tasks where run_id = :'run_n' and step_slug = 'producer';

-- (string) SETUP: the producer returns a string.
select run_id as run_d from pgflow.start_flow('map_chain', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_d', 'producer', 0, '"abc"'::jsonb)
from pgflow_tests.read_and_start('map_chain', 1, 1);

-- TEST (string): same type violation for a string
select is(status, 'failed', '(string) run failed') from pgflow.runs where run_id = :'run_d';
select is(status || ': ' || error_message,
          'failed: [TYPE_VIOLATION] Map step mapper expects array input but dependency producer produced string',
          '(string) producer step failed with a type-violation error')
from pgflow.step_states where run_id = :'run_d' and step_slug = 'producer';
select is(status || ': ' || error_message, 'failed: [TYPE_VIOLATION] Produced string instead of array',
          '(string) producer task failed with a type-violation error')
from pgflow.step_tasks where run_id = :'run_d' and step_slug = 'producer';
select is(pgflow_tests.queue_count('map_chain', 'q'), 0::bigint, '(null, string) no message left in the queue');

-- (null with retries) retries and when_exhausted = skip do not turn a type violation into a
-- retry or a skip
select pgflow.create_flow('null_skip', max_attempts => 3);
select pgflow.add_step('null_skip', 'producer', when_exhausted => 'skip');
select pgflow.add_step('null_skip', 'mapper', array['producer'], step_type => 'map');
select run_id as run_s from pgflow.start_flow('null_skip', '{}'::jsonb) \gset
select pgflow.complete_task(:'run_s', 'producer', 0, 'null'::jsonb)
from pgflow_tests.read_and_start('null_skip', 1, 1);
select is(status, 'failed', '(null) with retries and when_exhausted skip the run still fails')
from pgflow.runs where run_id = :'run_s';
select is(status, 'failed', '(null) the producer step is failed, not skipped')
from pgflow.step_states where run_id = :'run_s' and step_slug = 'producer';
select is(status, 'failed', '(null) the producer task is failed, not queued for a retry')
from pgflow.step_tasks where run_id = :'run_s' and step_slug = 'producer';

select * from finish();
rollback;
